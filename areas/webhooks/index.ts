/**
 * The webhooks area's in-process API: configs, deliveries and their attempts. Routes and activities import only this
 * file; the workflows it starts (test, replay) are started in engine.ts.
 */
export { listAttempts, NO_RETRY, presentAttempt, type WebhookAttempt } from './attempts';
export { changeSecret, createConfig, deleteConfig, getConfig, getConfigRow, listConfigs, presentConfig, setConfigActive, signingSecrets, updateConfig, type WebhookConfigRow } from './configs';
export { type AttemptRecord, type AttemptStatus, type DeliveryRow, getDeliveryRow, listDeliveries, markDeliveryFailed, planDeliveries, presentDelivery, recordAttempt, startReplay } from './deliveries';
export { type BatchDelivery, type DeliveryToSend, loadDeliveriesToSend, markDeliveriesFailed, planDeliveryBatch, recordAttempts } from './delivery-batch';
export { replayDelivery, testConfig } from './sends';
