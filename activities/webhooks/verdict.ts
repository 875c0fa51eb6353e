import type { WebhookConfigRow } from '../../areas/webhooks';
import type { AttemptRecord, AttemptStatus } from '../../areas/webhooks';
import { backoffDelayMs, type WebhookSettings } from '../../lib/webhooks/settings';
import { classifyOutcome, type HttpOutcome } from './http-send';

/** Retry-After is honoured up to this long; beyond, the regular schedule applies. */
export const MAX_RETRY_AFTER_MS = 6 * 3600_000;

export interface AttemptVerdict {
  status: AttemptStatus;
  error?: string;
  /** Set when another attempt is due: the wait before it (Retry-After when the receiver sent one). */
  nextDelayMs?: number;
  /** Whether nextDelayMs is the receiver's Retry-After rather than the backoff schedule. */
  retryAfter: boolean;
}

/**
 * What one attempt's HTTP outcome means for its delivery: success, another attempt after a delay, or a final failure
 * (other 4xx, a blocked address, or a retry that would fall outside the delivery's retry window). Shared by the batch's
 * first attempt and the delivery workflow's retries, so both record the same statuses and schedule.
 * @param retryAttempt this attempt's number (0 = the first).
 */
export function judgeAttempt(
  outcome: Pick<HttpOutcome, 'statusCode' | 'blocked' | 'error' | 'retryAfterMs'>,
  context: { retryAttempt: number; runStartedAt: Date; now: number; settings: Pick<WebhookSettings, 'initialIntervalMs' | 'backoffCoefficient' | 'maximumIntervalMs' | 'retryForMs'> },
): AttemptVerdict {
  const verdict = classifyOutcome(outcome);
  if (verdict === 'success') return { status: 'success', retryAfter: false };
  if (verdict === 'final') return { status: 'failed', error: outcome.error, retryAfter: false };
  const retryAfter = outcome.retryAfterMs !== undefined;
  const nextDelayMs = retryAfter ? Math.min(outcome.retryAfterMs!, MAX_RETRY_AFTER_MS) : backoffDelayMs(context.settings, context.retryAttempt + 1);
  if (context.now + nextDelayMs - context.runStartedAt.getTime() > context.settings.retryForMs) {
    return { status: 'failed', error: `${outcome.error ?? `status ${outcome.statusCode}`}; retries exhausted`, retryAfter: false };
  }
  return { status: 'to retry', error: outcome.error, nextDelayMs, retryAfter };
}

/** The row an attempt leaves, from its outcome and verdict (same for a batch's attempts and a delivery workflow's). */
export function attemptRecord(
  attempt: { deliveryId: string; retryAttempt: number; config: WebhookConfigRow; now: number },
  outcome: Pick<HttpOutcome, 'statusCode' | 'durationMs'>,
  verdict: AttemptVerdict,
): AttemptRecord {
  return {
    deliveryId: attempt.deliveryId,
    retryAttempt: attempt.retryAttempt,
    statusCode: outcome.statusCode,
    status: verdict.status,
    error: verdict.error,
    config: attempt.config,
    nextRetryAfter: verdict.nextDelayMs !== undefined ? new Date(attempt.now + verdict.nextDelayMs) : undefined,
    durationMs: outcome.durationMs,
  };
}
