/**
 * The events area's in-process API: the outbox's envelope and its batches. The dispatcher (activities/events) imports
 * only this file; the batch workflows are started in engine.ts.
 */
export { batchEvents, claimOutboxBatch, markBatchDispatched, outboxBacklog, pendingBatches } from './batches';
export { startEventBatch } from './engine';
export { type CausationLink, type EventCausation, type EventEnvelope, webhookBody, webhookEventType } from './envelope';
