import { MAX_RETRY_AFTER_MS, type AttemptRecord, type WebhookConfigRow } from '../../areas/webhooks';
import type { WebhookSettings } from '../../lib/webhooks/settings';
import { classifyOutcome, type HttpOutcome } from './http-send';

/** Retry-After is honoured up to this bound (the endpoint's next probe waits at most this long for it). */
export { MAX_RETRY_AFTER_MS };

/**
 * What an attempt means now that retries are per endpoint: success; a final failure (other 4xx, a blocked address,
 * a 410 Gone, which also disables the endpoint, or a retryable failure once the delivery's retry window is over); or
 * a retryable failure, after which the delivery waits in its endpoint's queue for the endpoint's next probe.
 */
export function queuedAttemptRecord(
  attempt: { deliveryId: string; retryAttempt: number; config: WebhookConfigRow; runStartedAt: Date; now: number },
  outcome: Pick<HttpOutcome, 'statusCode' | 'blocked' | 'error' | 'retryAfterMs' | 'durationMs'>,
  settings: Pick<WebhookSettings, 'retryForMs'>,
): AttemptRecord {
  const base = {
    deliveryId: attempt.deliveryId,
    retryAttempt: attempt.retryAttempt,
    statusCode: outcome.statusCode,
    config: attempt.config,
    durationMs: outcome.durationMs,
  };
  const verdict = classifyOutcome(outcome);
  if (verdict === 'success') return { ...base, status: 'success' };
  if (outcome.statusCode === 410) return { ...base, status: 'failed', error: 'the endpoint answered 410 Gone: it is disabled', gone: true };
  if (verdict === 'final') return { ...base, status: 'failed', ...(outcome.error ? { error: outcome.error } : {}) };
  if (attempt.now - attempt.runStartedAt.getTime() >= settings.retryForMs) {
    return { ...base, status: 'failed', error: `${outcome.error ?? `status ${outcome.statusCode}`}; retries exhausted` };
  }
  return {
    ...base,
    status: 'to retry',
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(outcome.retryAfterMs !== undefined ? { retryAfterMs: outcome.retryAfterMs } : {}),
  };
}
