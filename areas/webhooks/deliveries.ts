import { notFound } from '../../lib/errors';
import type { ListQuery } from '../../db/pagination';
import { keysetPage, type Page } from '../../db/pagination';
import type { Executor } from '../../db/knex';
import { isUuid, type WebhookConfigRow } from './configs';

/**
 * Formance's delivery statuses. pending: not attempted yet in its generation, or waiting for its next attempt;
 * succeeded and failed are final; cancelled: its config was deactivated or deleted before it succeeded. `delivering`
 * (Formance's claim by a worker) is never stored: an attempt is recorded with its outcome, and an attempt in flight
 * shows in Temporal as the running send activity.
 */
export const DELIVERY_STATUSES = ['pending', 'delivering', 'succeeded', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliveryRow {
  id: string;
  event_id: string;
  config_id: string;
  event_type: string;
  endpoint: string;
  payload: string;
  status: DeliveryStatus;
  /** Attempts of the current replay generation. */
  attempt_count: number;
  replay_generation: number;
  last_status_code: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  next_retry_at: Date | null;
  /** Start of the current generation's retry window (creation, or the replay). */
  run_started_at: Date;
  /** Waiting in its endpoint's queue (pending only), at position queue_seq. */
  queued: boolean;
  queue_seq: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Formance's Delivery: optional members are absent, never null. */
export interface Delivery {
  id: string;
  eventID: string;
  configID: string;
  eventType: string;
  status: DeliveryStatus;
  attemptCount: number;
  replayGeneration: number;
  /** The `formance-webhook-idempotency-key` (and `webhook-id`) header the receiver gets: the delivery id. */
  idempotencyKey: string;
  cycleStartedAt: Date;
  lastAttemptAt?: Date;
  lastStatusCode?: number;
  lastError?: string;
  nextAttemptAt?: Date;
  /** The body sent; on a single delivery only, as Formance's lists leave it out. */
  payload?: string;
  createdAt: Date;
  updatedAt: Date;
}

export function presentDelivery(row: DeliveryRow, options: { payload?: boolean } = {}): Delivery {
  return {
    id: row.id,
    eventID: row.event_id,
    configID: row.config_id,
    eventType: row.event_type,
    status: row.status,
    attemptCount: row.attempt_count,
    replayGeneration: row.replay_generation,
    idempotencyKey: row.id,
    cycleStartedAt: row.run_started_at,
    ...(row.last_attempt_at ? { lastAttemptAt: row.last_attempt_at } : {}),
    ...(row.last_status_code !== null ? { lastStatusCode: row.last_status_code } : {}),
    ...(row.last_error ? { lastError: row.last_error } : {}),
    ...(row.status === 'pending' && row.next_retry_at ? { nextAttemptAt: row.next_retry_at } : {}),
    ...(options.payload ? { payload: row.payload } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** @throws ApiError NOT_FOUND */
export async function getDeliveryRow(db: Executor, id: string): Promise<DeliveryRow> {
  const row = isUuid(id) ? await db<DeliveryRow>('webhook_deliveries').where({ id }).first() : undefined;
  if (!row) throw notFound('delivery not found');
  return row;
}

/** Formance's filters (configId, status, createdAtFrom/To, both bounds included) and ours (eventID). */
export interface DeliveryFilters {
  configId?: string;
  eventID?: string;
  status?: DeliveryStatus;
  createdAtFrom?: string;
  createdAtTo?: string;
}

/** Newest first. */
export async function listDeliveries(db: Executor, list: ListQuery<DeliveryFilters>): Promise<Page<DeliveryRow>> {
  const { configId, eventID, status, createdAtFrom, createdAtTo } = list.filters;
  const query = db<DeliveryRow>('webhook_deliveries').select('*');
  if (configId !== undefined) query.where('config_id', configId);
  if (eventID !== undefined) query.where('event_id', eventID);
  if (status !== undefined) query.where('status', status);
  if (createdAtFrom !== undefined) query.where('created_at', '>=', new Date(createdAtFrom));
  if (createdAtTo !== undefined) query.where('created_at', '<=', new Date(createdAtTo));
  return keysetPage<DeliveryRow>(query, ['created_at', 'id'], 'desc', list);
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
  /** The receiver's Retry-After on a retryable answer: the endpoint's next probe waits at least this long. */
  retryAfterMs?: number;
  /** A 410 Gone: the endpoint is disabled at once (Standard Webhooks). */
  gone?: boolean;
}

/** Final failure decided outside an attempt (the send activity of a previous release's delivery workflow timed out). */
export async function markDeliveryFailed(db: Executor, id: string, error: string): Promise<void> {
  await db('webhook_deliveries')
    .where({ id, status: 'pending' })
    .update({ status: 'failed', last_error: error, next_retry_at: null, queued: false, updated_at: db.fn.now() });
}
