import { webhookBody, webhookEventType, type EventEnvelope } from '../events';
import type { Db, Executor } from '../../db/knex';
import type { WebhookConfigRow } from './configs';
import { stringifyJson } from '../../lib/json';

/** One delivery of an event batch, with what its workflow id and search attributes need. */
export interface BatchDelivery {
  deliveryId: string;
  configId: string;
  eventId: string;
  eventType: string;
}

/**
 * One delivery per (event, active config subscribed to its type) for a whole batch of events, in one statement.
 * Idempotent (unique (event, config)): a retried planning activity gets the rows the first run created.
 * @returns every delivery of these events, in event order then config id.
 */
export async function planDeliveryBatch(db: Db, events: EventEnvelope[]): Promise<BatchDelivery[]> {
  if (events.length === 0) return [];
  const ids = events.map((e) => e.id);
  await db.raw(
    `INSERT INTO webhook_deliveries (id, event_id, config_id, event_type, endpoint, payload)
     SELECT gen_random_uuid(), e.id, c.id, e.type, c.endpoint, e.payload
     FROM json_to_recordset(?::json) AS e(id uuid, type text, payload text)
     JOIN webhook_configs c ON c.active AND c.event_types @> ARRAY[e.type]
     ON CONFLICT (event_id, config_id) DO NOTHING`,
    // JSON rather than arrays: knex would expand an array binding into a list of placeholders.
    [stringifyJson(events.map((e) => ({ id: e.id, type: webhookEventType(e), payload: webhookBody(e) })))],
  );
  const rows: Array<{ id: string; config_id: string; event_id: string; event_type: string }> = await db('webhook_deliveries')
    .select('id', 'config_id', 'event_id', 'event_type')
    .whereIn('event_id', ids);
  const order = new Map(ids.map((id, i) => [id, i]));
  rows.sort((a, b) => order.get(a.event_id)! - order.get(b.event_id)! || a.config_id.localeCompare(b.config_id));
  return rows.map((r) => ({ deliveryId: r.id, configId: r.config_id, eventId: r.event_id, eventType: r.event_type }));
}

/** A delivery as the batch's first attempt needs it: its row and its config (undefined when deleted). */
export interface DeliveryToSend {
  id: string;
  configId: string;
  /** Waiting in its endpoint's queue: sent by the endpoint's drain, not by an event batch. */
  queued: boolean;
  payload: string;
  status: string;
  attemptCount: number;
  replayGeneration: number;
  nextRetryAt: Date | null;
  runStartedAt: Date;
  config?: WebhookConfigRow;
}

/** Reads deliveries and their configs in two queries. */
export async function loadDeliveriesToSend(db: Executor, ids: string[]): Promise<DeliveryToSend[]> {
  const rows = await db('webhook_deliveries')
    .select('id', 'config_id', 'payload', 'status', 'queued', 'attempt_count', 'replay_generation', 'next_retry_at', 'run_started_at')
    .whereIn('id', ids);
  const configIds = [...new Set(rows.map((r: { config_id: string }) => r.config_id))];
  const configs = new Map<string, WebhookConfigRow>((await db<WebhookConfigRow>('webhook_configs').whereIn('id', configIds)).map((c) => [c.id, c]));
  return rows.map((r: any) => ({
    id: r.id,
    configId: r.config_id,
    queued: r.queued,
    payload: r.payload,
    status: r.status,
    attemptCount: r.attempt_count,
    replayGeneration: r.replay_generation,
    nextRetryAt: r.next_retry_at,
    runStartedAt: r.run_started_at,
    config: configs.get(r.config_id),
  }));
}

/** Deliveries whose config is gone or inactive (Formance cancels them); a delivery already final is left as it is. */
export async function cancelDeliveries(db: Executor, ids: string[], reason: string): Promise<void> {
  if (ids.length === 0) return;
  await db('webhook_deliveries')
    .whereIn('id', ids)
    .where('status', 'pending')
    .update({ status: 'cancelled', last_error: reason, next_retry_at: null, updated_at: db.fn.now() });
}
