import type { ListQuery } from '../../db/pagination';
import { keysetPage, type Page } from '../../db/pagination';
import type { Executor } from '../../db/knex';
import type { WebhookConfig } from './configs';
import { getDeliveryRow, type AttemptStatus } from './deliveries';

/** Formance's zero time: what `nextRetryAfter` says when no retry is scheduled. */
export const NO_RETRY = '0001-01-01T00:00:00Z';

/** The spec's WebhookAttempt; `error` (transport failure or refusal) is ours, absent when the endpoint answered. */
export interface WebhookAttempt {
  id: string;
  webhookID: string;
  createdAt: Date | string;
  updatedAt: Date | string;
  config: WebhookConfig;
  payload: string;
  statusCode: number;
  retryAttempt: number;
  status: AttemptStatus;
  nextRetryAfter: Date | string;
  error?: string;
}

export interface AttemptRow {
  id: string;
  delivery_id: string;
  seq: string;
  retry_attempt: number;
  status_code: number;
  status: AttemptStatus;
  error: string | null;
  config: WebhookConfig;
  next_retry_after: Date | null;
  duration_ms: number;
  created_at: Date;
  payload: string;
}

export function presentAttempt(row: AttemptRow): WebhookAttempt {
  return {
    id: row.id,
    webhookID: row.delivery_id,
    createdAt: row.created_at,
    updatedAt: row.created_at,
    config: row.config,
    payload: row.payload,
    statusCode: row.status_code,
    retryAttempt: row.retry_attempt,
    status: row.status,
    nextRetryAfter: row.next_retry_after ?? NO_RETRY,
    ...(row.error ? { error: row.error } : {}),
  };
}

/** A delivery's attempts, oldest first (replays included). @throws ApiError NOT_FOUND */
export async function listAttempts(db: Executor, deliveryId: string, list: ListQuery): Promise<Page<AttemptRow>> {
  const delivery = await getDeliveryRow(db, deliveryId);
  const query = db('webhook_attempts').select('webhook_attempts.*', db.raw('? AS payload', [delivery.payload])).where('delivery_id', delivery.id);
  return keysetPage<AttemptRow>(query, ['seq'], 'asc', list);
}
