/**
 * The webhooks area's in-process API: configs, deliveries and their attempts. Routes and activities import only this
 * file; the workflows it starts (test, replay) are started in engine.ts.
 */
export { type DeliveryAttempt, listAttempts, NO_RETRY, presentAttempt, type WebhookAttempt } from './attempts';
export { changeSecret, createConfig, deleteConfig, getConfig, getConfigRow, listConfigs, presentConfig, setConfigActive, signingSecrets, updateConfig, type WebhookConfigRow } from './configs';
export { type AttemptRecord, type AttemptStatus, cancelDelivery, DELIVERY_STATUSES, type Delivery, type DeliveryFilters, type DeliveryRow, getDeliveryRow, listDeliveries, markDeliveryFailed, planDeliveries, presentDelivery, recordAttempt } from './deliveries';
export { type BatchDelivery, cancelDeliveries, type DeliveryToSend, loadDeliveriesToSend, planDeliveryBatch, recordAttempts } from './delivery-batch';
export { type BulkReplayRequest, type BulkReplayResult } from './replays';
export { replayDeliveries, replayDelivery, testConfig } from './sends';
