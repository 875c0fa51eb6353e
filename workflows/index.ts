// The worker's workflow bundle entry point: every workflow type is exported from here.
export { platformSelfTest } from './self-test';
export { platformNoop } from './noop';
export { connectorInstall, connectorPoll, connectorReset, connectorUninstall } from './payments/connector-poll';
export { paymentInitiationExecute } from './payments/payment-initiation';
export { paymentInitiationReverse } from './payments/payment-initiation-reverse';
export { bankAccountForward } from './payments/bank-account-forward';
export { connectorCallback } from './payments/connector-callback';
export { paymentServiceUserDelete } from './payments/psu-delete';
export { processEventBatch } from './events/process-event-batch';
export { testWebhook } from './webhooks/test-webhook';
export { webhookEndpoint } from './webhooks/webhook-endpoint';
export { orchestrationInstance } from './orchestration/instance';
export { ledgerPipeline } from './ledger/pipeline';
export {
  openBankingCompleteLink,
  openBankingDeleteConnection,
  openBankingDeletePsuConnector,
  paymentServiceUserForward,
} from './payments/open-banking';
export { reconciliationRuleRun } from './reconciliation/rule-run';
