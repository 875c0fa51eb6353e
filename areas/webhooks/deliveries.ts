import { conflict, notFound } from '../../lib/errors';
import type { ListQuery } from '../../db/pagination';
import type { EventEnvelope } from '../events';
import { keysetPage, type Page } from '../../db/pagination';
import type { Db, Executor } from '../../db/knex';
import { isUuid, type WebhookConfigRow } from './configs';
import { planDeliveryBatch, recordAttempts } from './delivery-batch';

/** pending: not attempted yet; retrying: an attempt failed and another is scheduled; success and failed are final. */
export type DeliveryStatus = 'pending' | 'retrying' | 'success' | 'failed';

export interface DeliveryRow {
  id: string;
  event_id: string;
  config_id: string;
  event_type: string;
  endpoint: string;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  replays: number;
  last_status_code: number | null;
  last_error: string | null;
  next_retry_at: Date | null;
  run_started_at: Date;
  created_at: Date;
  updated_at: Date;
}

export interface Delivery {
  id: string;
  eventID: string;
  configID: string;
  eventType: string;
  endpoint: string;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  replays: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextRetryAfter: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export function presentDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    eventID: row.event_id,
    configID: row.config_id,
    eventType: row.event_type,
    endpoint: row.endpoint,
    payload: row.payload,
    status: row.status,
    attempts: row.attempts,
    replays: row.replays,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    nextRetryAfter: row.next_retry_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * One delivery per active config subscribed to the event's type (the planning step of the per-event workflow of the
 * previous release). Idempotent: see planDeliveryBatch.
 */
export async function planDeliveries(db: Db, event: EventEnvelope): Promise<Array<{ deliveryId: string; configId: string }>> {
  return (await planDeliveryBatch(db, [event])).map((d) => ({ deliveryId: d.deliveryId, configId: d.configId }));
}

/** @throws ApiError NOT_FOUND */
export async function getDeliveryRow(db: Executor, id: string): Promise<DeliveryRow> {
  const row = isUuid(id) ? await db<DeliveryRow>('webhook_deliveries').where({ id }).first() : undefined;
  if (!row) throw notFound('delivery not found');
  return row;
}

export interface DeliveryFilters {
  configID?: string;
  eventID?: string;
  status?: DeliveryStatus;
}

/** Newest first; filters configID, eventID and status. */
export async function listDeliveries(db: Executor, list: ListQuery<DeliveryFilters>): Promise<Page<DeliveryRow>> {
  const { configID, eventID, status } = list.filters;
  if ((configID !== undefined && !isUuid(configID)) || (eventID !== undefined && !isUuid(eventID))) {
    return { items: [], hasNext: false, hasPrevious: false };
  }
  const query = db<DeliveryRow>('webhook_deliveries').select('*');
  if (configID !== undefined) query.where('config_id', configID);
  if (eventID !== undefined) query.where('event_id', eventID);
  if (status !== undefined) query.where('status', status);
  return keysetPage<DeliveryRow>(query, ['created_at', 'id'], 'desc', list);
}

/** Moves a finished delivery back to pending for a new run. @throws ApiError NOT_FOUND, CONFLICT (still running) */
export async function startReplay(db: Db, id: string): Promise<DeliveryRow> {
  return db.transaction(async (trx) => {
    // The row lock serialises concurrent replays of one delivery: only one of them sees a final status.
    const current = isUuid(id) ? await trx<DeliveryRow>('webhook_deliveries').where({ id }).forUpdate().first() : undefined;
    if (!current) throw notFound('delivery not found');
    if (current.status === 'pending' || current.status === 'retrying') {
      throw conflict(`delivery is still ${current.status}; replay it once it has succeeded or failed`);
    }
    const [updated] = await trx<DeliveryRow>('webhook_deliveries')
      .where({ id })
      .update({
        status: 'pending',
        replays: trx.raw('replays + 1') as unknown as number,
        next_retry_at: null,
        run_started_at: trx.fn.now() as unknown as Date,
        updated_at: trx.fn.now() as unknown as Date,
      })
      .returning('*');
    return updated;
  });
}

export type AttemptStatus = 'success' | 'to retry' | 'failed';

export interface AttemptRecord {
  deliveryId: string;
  retryAttempt: number;
  statusCode: number;
  status: AttemptStatus;
  error?: string;
  config: WebhookConfigRow;
  nextRetryAfter?: Date;
  durationMs: number;
}

/** Stores one attempt and moves the delivery to the state it implies, in one transaction. */
export async function recordAttempt(db: Db, record: AttemptRecord): Promise<void> {
  await recordAttempts(db, [record]);
}

/** Final failure decided outside an attempt (config deleted or deactivated, activity timed out). */
export async function markDeliveryFailed(db: Executor, id: string, error: string): Promise<void> {
  await db('webhook_deliveries').where({ id }).whereNot('status', 'success').update({ status: 'failed', last_error: error, next_retry_at: null, updated_at: db.fn.now() });
}
