/**
 * The payments area's in-process API: connectors, provider data, payments, bank accounts, payment service users,
 * pools and payment initiations. Routes and activities import only this file; its Temporal calls live in engine/.
 */
export { balanceKey, listAccountBalances, listAccountsJson } from './accounts/account-list';
export { type ProviderAccount, getAccount, type ProviderBalance, upsertAccounts, upsertBalances } from './accounts/accounts';
export { forwardBankAccount, forwardPsuBankAccount, recordForwardedAccount } from './accounts/bank-account-forward';
export {
  CONVERSION_STATUSES,
  conversionKey,
  getConversion,
  listConversions,
  type ProviderConversion,
  upsertConversions,
} from './trading/conversions';
export {
  getOrder,
  listOrders,
  ORDER_DIRECTIONS,
  ORDER_STATUSES,
  ORDER_TYPES,
  orderKey,
  type ProviderOrder,
  TIME_IN_FORCE,
  upsertOrders,
} from './trading/orders';
export { reversePaymentInitiation, type ReversalInput } from './initiations/initiation-reversal';
export { failReversal, loadReversalForConnector, recordReversalPayment } from './initiations/reversal-execute';
export { bankAccountKey, getBankAccount, listBankAccounts } from './accounts/bank-account-read';
export { createBankAccount, updateBankAccountMetadata } from './accounts/bank-account-write';
export { type ConnectorConfig, type ConnectorProvider, DURATION_PATTERN, durationMs, resolveSimulatedDirectory } from './connectors/connector-config';
export { allCapabilities, capabilitiesOf, connectorConfigFields, FETCH_KINDS, requireCapability } from './connectors/connector-catalog';
export {
  installConnector,
  recreateConnectorSchedules,
  removeConnectorSchedules,
  resetConnector,
  uninstallConnector,
} from './connectors/connector-install';
export { getConnectorSchedule, listConnectorSchedules, listScheduleInstances, scheduleItemKey } from './connectors/connector-schedules';
export { getTask } from './connectors/connector-tasks';
export { updateConnectorConfig } from './connectors/connector-update';
export {
  connectorKey,
  type ConnectorRow,
  getConnectorConfig,
  getConnectorRow,
  listConnectors,
  lockInstalledConnector,
} from './connectors/connectors';
export {
  ACCOUNT_TYPES,
  ASSET_PATTERN,
  PAYMENT_INITIATION_STATUSES,
  PAYMENT_INITIATION_TYPES,
  PAYMENT_SCHEMES,
  PAYMENT_STATUSES,
  PAYMENT_TYPES,
} from './enums';
export { connectorId, connectorLabel } from './ids';
export { createPaymentInitiation } from './initiations/initiation-create';
export { failInitiation, loadInitiationForConnector, markInitiationProcessing, recordInitiationPayment } from './initiations/initiation-execute';
export {
  approvePaymentInitiation,
  deletePaymentInitiation,
  rejectPaymentInitiation,
  retryPaymentInitiation,
} from './initiations/initiation-transitions';
export { getPaymentInitiationDetails, initiationKey, listPaymentInitiations } from './initiations/initiations';
export {
  initiationAdjustmentKey,
  initiationPaymentKey,
  listInitiationAdjustments,
  listInitiationPayments,
  presentInitiationAdjustment,
} from './initiations/initiation-related';
export {
  createPaymentServiceUser,
  deletePaymentServiceUser,
  getPaymentServiceUser,
  linkBankAccount,
  listPaymentServiceUsers,
  paymentServiceUserKey,
  removePaymentServiceUser,
} from './open-banking/payment-service-users';
export {
  connectionKey,
  deletePaymentServiceUserConnection,
  deletePaymentServiceUserConnector,
  forwardPaymentServiceUserToProvider,
  listConnections,
  type OpenBankingConnection,
} from './open-banking/psu-open-banking';
export {
  checkConsentState,
  consentPath,
  createPsuLink,
  decideConsent,
  getLinkAttempt,
  type LinkAttempt,
  linkAttemptKey,
  listLinkAttempts,
  updatePsuLink,
} from './open-banking/psu-links';
export {
  connectionsOf,
  connectorsOfPsu,
  exitLinkAttempt,
  findConnection,
  loadPendingAttempt,
  loadPsuForConnector,
  recordLinkCompletion,
  recordPsuForward,
  removeConnection,
  removePsuConnector,
} from './open-banking/psu-connections';
export { getPayment, type ProviderPayment, updatePaymentMetadata } from './payments/payments';
export { upsertPayment, upsertPayments } from './payments/payments-upsert';
export { listPaymentsJson, SORT_FIELDS } from './payments/payments-list';
export { QUERY_FIELDS } from './payments/payments-query';
export { changePoolAccount, createPool, deletePool, getPool, getPoolBalances, listPools, poolKey, updatePoolQuery } from './accounts/pools';
export { getPoolBalancesAt } from './accounts/balances-at';
export { createManualAccount, createManualPayment } from './payments/manual-records';
export { findConnectorByProvider, getPaymentForStage, providerTransfer, type StagePayment } from './orchestration';
export {
  type ConnectorV1,
  getConnectorTaskV1,
  installConnectorV1,
  listConnectorsV1,
  listConnectorTasksV1,
  readConnectorConfigV1,
  resetConnectorV1,
  type TaskV1,
  uninstallConnectorV1,
  updateConnectorConfigV1,
} from './connectors/connectors-v1';
export { balanceV1Key, createAccountV1, createPaymentV1, getAccountV1, listAccountBalancesV1 } from './payments/payments-v1';
export { type BankAccountV1, createBankAccountV1, forwardBankAccountV1, listBankAccountsV1 } from './accounts/bank-accounts-v1';
export { createPoolV1, getPoolBalancesV1, getPoolV1, listPoolsV1, poolV1Key, updatePoolQueryV1 } from './accounts/pools-v1';
export {
  connectorTransferV1,
  createTransferInitiationV1,
  deleteTransferInitiationV1,
  getTransferInitiationV1,
  listTransferInitiationsV1,
  retryTransferInitiationV1,
  reverseTransferInitiationV1,
  transferInitiationV1Key,
  updateTransferInitiationStatusV1,
} from './initiations/transfer-initiations-v1';
export { clearFetchStates, getConnectorState, saveConnectorState } from './connectors/connector-states';
export { receiveConnectorCallback } from './connectors/connector-callbacks';
export { receiveConnectorWebhook, webhookPath } from './connectors/connector-webhooks';
export {
  CAPABILITIES,
  configError,
  OPEN_BANKING_CAPABILITIES,
  type BankAccountRequest,
  type ConnectorPlugin,
  type ConnectorPluginModule,
  type ConnectorWebhooksState,
  type FetchPage,
  type InitiationRequest,
  type OpenBankingConnectionData,
  type OpenBankingPlugin,
  type OpenBankingUser,
  type PluginContext,
  type ReversalRequest,
  type WebhookEndpoint,
  type WebhookEvent,
  type WebhookRequest,
  type WebhookRows,
  type WebhookVerdict,
} from './connectors/plugin-contract';
export {
  connectorConfigBodySchema,
  connectorPlugin,
  connectorPlugins,
  contractProblem,
  findConnectorPlugin,
  registerConnectorPlugins,
} from './connectors/plugin-registry';
