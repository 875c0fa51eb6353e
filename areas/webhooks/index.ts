/**
 * The webhooks area's in-process API: configs, deliveries, their attempts and the endpoints' queues. Routes and
 * activities import only this file; the workflows it starts (test sends, endpoint drains) are started in engine.ts.
 */
export { type DeliveryAttempt, listAttempts, NO_RETRY, presentAttempt, type WebhookAttempt } from './attempts';
export {
  changeSecret,
  createConfig,
  deleteConfig,
  getConfig,
  getConfigRow,
  listConfigs,
  presentConfig,
  setConfigActive,
  signingSecrets,
  updateConfig,
  type WebhookConfigRow,
} from './configs';
export {
  type AttemptRecord,
  type AttemptStatus,
  type Delivery,
  type DeliveryFilters,
  type DeliveryRow,
  getDeliveryRow,
  listDeliveries,
  markDeliveryFailed,
  presentDelivery,
} from './deliveries';
export { type BatchDelivery, cancelDeliveries, type DeliveryToSend, loadDeliveriesToSend, planDeliveryBatch } from './delivery-batch';
export {
  type EndpointDrain,
  type EndpointStats,
  type EndpointStep,
  enqueueDeliveries,
  getEndpointStats,
  nextEndpointStep,
  queueBehindDrains,
} from './endpoints';
export { MAX_RETRY_AFTER_MS, recordAttempts } from './outcomes';
export { type BulkReplayRequest, type BulkReplayResult, type RecoverResult } from './replays';
export { ensureAllDrains, ensureDrains, recoverDeliveries, replayDeliveries, replayDelivery, testConfig } from './sends';
