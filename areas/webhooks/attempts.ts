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
  replay_generation: number;
  status_code: number;
  status: AttemptStatus;
  error: string | null;
  config: WebhookConfig;
  next_retry_after: Date | null;
  duration_ms: number;
  created_at: Date;
}

/** Formance's DeliveryAttempt: one HTTP call of a delivery. */
export interface DeliveryAttempt {
  id: string;
  deliveryID: string;
  /** 1 for the first attempt of its replay generation. */
  attemptNumber: number;
  replayGeneration: number;
  /** The URL called: the config's endpoint at the time. */
  endpoint: string;
  outcome: 'succeeded' | 'retryable_failure' | 'permanent_failure';
  /** 0 when no response came back. */
  statusCode: number;
  /** Why no response came back, or why the attempt was the last (retries exhausted, address refused). */
  error?: string;
  durationMillis: number;
  createdAt: Date;
}

const outcomes = { success: 'succeeded', 'to retry': 'retryable_failure', failed: 'permanent_failure' } as const;

export function presentAttempt(row: AttemptRow): DeliveryAttempt {
  return {
    id: row.id,
    deliveryID: row.delivery_id,
    attemptNumber: row.retry_attempt + 1,
    replayGeneration: row.replay_generation,
    endpoint: row.config.endpoint,
    outcome: outcomes[row.status],
    statusCode: row.status_code,
    ...(row.error ? { error: row.error } : {}),
    durationMillis: row.duration_ms,
    createdAt: row.created_at,
  };
}

/** A delivery's attempts, newest first as Formance lists them (replays included). @throws ApiError NOT_FOUND */
export async function listAttempts(db: Executor, deliveryId: string, list: ListQuery): Promise<Page<AttemptRow>> {
  const delivery = await getDeliveryRow(db, deliveryId);
  return keysetPage<AttemptRow>(db('webhook_attempts').select('*').where('delivery_id', delivery.id), ['seq'], 'desc', list);
}
