/**
 * The payments area's in-process API: connectors, provider data, payments, bank accounts, payment service users,
 * pools and payment initiations. Routes and activities import only this file; its Temporal calls live in engine/.
 */
export { balanceKey, listAccountBalances, listAccountsJson } from './account-list';
export { type ProviderAccount, getAccount, type ProviderBalance, upsertAccounts, upsertBalances } from './accounts';
export { forwardBankAccount, forwardPsuBankAccount, recordForwardedAccount } from './bank-account-forward';
export { CONVERSION_STATUSES, conversionKey, getConversion, listConversions, type ProviderConversion, upsertConversions } from './conversions';
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
} from './orders';
export { reversePaymentInitiation, type ReversalInput } from './initiation-reversal';
export { failReversal, loadReversalForConnector, recordReversalPayment } from './reversal-execute';
export { bankAccountKey, getBankAccount, listBankAccounts } from './bank-account-read';
export { createBankAccount, updateBankAccountMetadata } from './bank-account-write';
export {
  type ConnectorConfig,
  type ConnectorProvider,
  DURATION_PATTERN,
  durationMs,
  type GenericConfig,
  resolveSimulatedDirectory,
  type SimulatedConfig,
  STRIPE_API_BASE,
  type StripeConfig,
  type MangopayConfig,
  type AdyenConfig,
} from './connector-config';
export { allCapabilities, CAPABILITIES, capabilitiesOf, connectorConfigFields, FETCH_KINDS, requireCapability } from './connector-catalog';
export { installConnector, recreateConnectorSchedules, removeConnectorSchedules, resetConnector, uninstallConnector } from './connector-install';
export { getConnectorSchedule, listConnectorSchedules, listScheduleInstances, scheduleItemKey } from './connector-schedules';
export { getTask } from './connector-tasks';
export { updateConnectorConfig } from './connector-update';
export { connectorKey, type ConnectorRow, getConnectorConfig, getConnectorRow, listConnectors, lockInstalledConnector } from './connectors';
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
export { createPaymentInitiation } from './initiation-create';
export { failInitiation, loadInitiationForConnector, markInitiationProcessing, recordInitiationPayment } from './initiation-execute';
export { approvePaymentInitiation, deletePaymentInitiation, rejectPaymentInitiation, retryPaymentInitiation } from './initiation-transitions';
export { getPaymentInitiationDetails, initiationKey, listPaymentInitiations } from './initiations';
export {
  initiationAdjustmentKey,
  initiationPaymentKey,
  listInitiationAdjustments,
  listInitiationPayments,
  presentInitiationAdjustment,
} from './initiation-related';
export {
  createPaymentServiceUser,
  deletePaymentServiceUser,
  getPaymentServiceUser,
  linkBankAccount,
  listPaymentServiceUsers,
  paymentServiceUserKey,
  removePaymentServiceUser,
} from './payment-service-users';
export {
  connectionKey,
  deletePaymentServiceUserConnection,
  deletePaymentServiceUserConnector,
  forwardPaymentServiceUserToProvider,
  listConnections,
  type OpenBankingConnection,
} from './psu-open-banking';
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
} from './psu-links';
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
} from './psu-connections';
export { getPayment, type ProviderPayment, updatePaymentMetadata } from './payments';
export { upsertPayment, upsertPayments } from './payments-upsert';
export { listPaymentsJson, SORT_FIELDS } from './payments-list';
export { QUERY_FIELDS } from './payments-query';
export { changePoolAccount, createPool, deletePool, getPool, getPoolBalances, listPools, poolKey, updatePoolQuery } from './pools';
export { getPoolBalancesAt } from './balances-at';
export { createManualAccount, createManualPayment } from './manual-records';
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
} from './connectors-v1';
export { balanceV1Key, createAccountV1, createPaymentV1, getAccountV1, listAccountBalancesV1 } from './payments-v1';
export { type BankAccountV1, createBankAccountV1, forwardBankAccountV1, listBankAccountsV1 } from './bank-accounts-v1';
export { createPoolV1, getPoolBalancesV1, getPoolV1, listPoolsV1, poolV1Key, updatePoolQueryV1 } from './pools-v1';
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
} from './transfer-initiations-v1';
export { clearFetchStates, getConnectorState, saveConnectorState } from './connector-states';
export {
  STRIPE_ROOT_ACCOUNT,
  STRIPE_WEBHOOK_EVENTS,
  stripeAmount,
  stripeAsset,
  stripeBalances,
  stripeBalanceTransaction,
  stripeConnectedAccount,
  stripeExternalAccount,
  stripePayout,
  stripePlatformAccount,
  stripeTransfer,
  stripeTransferReversal,
} from './stripe-mapping';
export { receiveConnectorCallback } from './connector-callbacks';
export { receiveStripeWebhook, type StripeWebhooksState, webhookPath } from './stripe-webhooks';
export { adyenAsset, adyenMerchantAccount, adyenNotificationPayment, ADYEN_PAYMENT_EVENTS } from './adyen-mapping';
export { receiveAdyenWebhook } from './adyen-webhooks';
export { receiveConnectorWebhook } from './connector-webhooks';
