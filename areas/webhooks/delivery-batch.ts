import { randomUUID } from 'node:crypto';
import { webhookBody, webhookEventType, type EventEnvelope } from '../events';
import type { Db, Executor } from '../../db/knex';
import { presentConfig, type WebhookConfigRow } from './configs';
import type { AttemptRecord } from './deliveries';
import { stringifyJson } from '../../lib/json';
import { metrics } from '../../lib/metrics';

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
  const rows = await db('webhook_deliveries').select('id', 'config_id', 'payload', 'status', 'attempt_count', 'replay_generation', 'next_retry_at', 'run_started_at').whereIn('id', ids);
  const configIds = [...new Set(rows.map((r: { config_id: string }) => r.config_id))];
  const configs = new Map<string, WebhookConfigRow>((await db<WebhookConfigRow>('webhook_configs').whereIn('id', configIds)).map((c) => [c.id, c]));
  return rows.map((r: any) => ({
    id: r.id,
    payload: r.payload,
    status: r.status,
    attemptCount: r.attempt_count,
    replayGeneration: r.replay_generation,
    nextRetryAt: r.next_retry_at,
    runStartedAt: r.run_started_at,
    config: configs.get(r.config_id),
  }));
}

/** The delivery status an attempt leaves: another attempt to come keeps it pending. */
const statusAfter = { success: 'succeeded', 'to retry': 'pending', failed: 'failed' } as const;

/**
 * Stores attempts and moves each delivery to the state its attempt implies, in one transaction of two statements
 * whatever the number of attempts. The delivery is updated first: its row gives the attempt's replay generation.
 */
export async function recordAttempts(db: Db, records: AttemptRecord[]): Promise<void> {
  if (records.length === 0) return;
  await db.transaction(async (trx) => {
    const updated = await trx.raw(
      `UPDATE webhook_deliveries d
       SET status = v.status, attempt_count = d.attempt_count + 1, last_status_code = v.code, last_error = v.error, next_retry_at = v.next,
           last_attempt_at = now(), updated_at = now()
       FROM json_to_recordset(?::json) AS v(id uuid, status text, code int, error text, next timestamptz)
       WHERE d.id = v.id
       RETURNING d.id, d.replay_generation`,
      [
        stringifyJson(
          records.map((r) => ({
            id: r.deliveryId,
            status: statusAfter[r.status],
            code: r.statusCode,
            error: r.error ?? null,
            next: r.nextRetryAfter?.toISOString() ?? null,
          })),
        ),
      ],
    );
    const generation = new Map<string, number>(updated.rows.map((row: { id: string; replay_generation: number }) => [row.id, row.replay_generation]));
    await trx('webhook_attempts').insert(
      records.map((record) => ({
        id: randomUUID(),
        delivery_id: record.deliveryId,
        retry_attempt: record.retryAttempt,
        replay_generation: generation.get(record.deliveryId) ?? 0,
        status_code: record.statusCode,
        status: record.status,
        error: record.error ?? null,
        config: stringifyJson(presentConfig(record.config)),
        next_retry_after: record.nextRetryAfter ?? null,
        duration_ms: record.durationMs,
      })),
    );
  });
  // Every attempt, the batch's first ones and the delivery workflows' retries alike, is recorded here and only here.
  for (const record of records) {
    const outcome = record.status === 'to retry' ? 'retry' : record.status;
    metrics.webhookAttempts.inc({ outcome });
    metrics.webhookAttemptDuration.observe({ outcome }, record.durationMs / 1000);
    if (outcome !== 'retry') metrics.webhookAttemptNumber.observe({ outcome }, record.retryAttempt + 1);
  }
}

/** Deliveries whose config is gone or inactive (Formance cancels them); a delivery already final is left as it is. */
export async function cancelDeliveries(db: Executor, ids: string[], reason: string): Promise<void> {
  if (ids.length === 0) return;
  await db('webhook_deliveries').whereIn('id', ids).where('status', 'pending').update({ status: 'cancelled', last_error: reason, next_retry_at: null, updated_at: db.fn.now() });
}
