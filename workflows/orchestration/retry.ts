import { NON_RETRYABLE_CODES } from '../../lib/orchestration/failure-codes';

/**
 * Business activities (Formance's InfiniteRetryContext): no attempt limit, so insufficient funds or a provider that is
 * down heal by themselves or wait for an abort; backoff 1 s doubling up to 100 s.
 */
export const BUSINESS_ACTIVITY_OPTIONS = {
  startToCloseTimeout: '60s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '100s', nonRetryableErrorTypes: NON_RETRYABLE_CODES },
} as const;

/**
 * Read-model writes (local activities, idempotent): retried by the worker within the workflow task until the database
 * answers; an outage longer than the local retry threshold turns into timers in the history, which is what a long
 * outage should look like.
 */
export const LOCAL_BOOKKEEPING_OPTIONS = {
  startToCloseTimeout: '10s',
  localRetryThreshold: '10s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '10s' },
} as const;

/**
 * The local first attempt of a business step (StageContext): one attempt only, since any failure hands the step to
 * the regular activity and its retry policy. Its timeout is short because a step that slow belongs in a regular
 * activity; a late finish is harmless, as both attempts carry the same idempotency key.
 */
export const LOCAL_STEP_OPTIONS = {
  startToCloseTimeout: '10s',
  retry: { maximumAttempts: 1 },
} as const;
