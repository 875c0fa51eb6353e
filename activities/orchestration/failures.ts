import { AsyncLocalStorage } from 'node:async_hooks';
import { ApplicationFailure } from '@temporalio/common';
import { isApiError } from '../../lib/errors';
import { NON_RETRYABLE_CODES } from '../../lib/orchestration/failure-codes';

/**
 * Runs one business call and turns its ApiError into an ApplicationFailure typed by the error code: the code would
 * be lost otherwise, as only the failure's type and message cross the activity boundary. Codes that cannot heal by
 * waiting (NON_RETRYABLE_CODES) fail the stage at once; the rest (INSUFFICIENT_FUND, a provider or database that is
 * down, an area not deployed yet) are retried with backoff until they succeed or the instance is aborted.
 */
export async function classified<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isApiError(error)) {
      throw ApplicationFailure.create({
        message: error.message,
        type: error.code,
        nonRetryable: NON_RETRYABLE_CODES.includes(error.code),
        cause: error,
      });
    }
    throw error;
  }
}

const stepKey = new AsyncLocalStorage<string>();

/** Runs `work` with the key a step was given (StepOptions.key), which idempotencyKey() then returns. */
export function withIdempotencyKey<T>(key: string, work: () => Promise<T>): Promise<T> {
  return stepKey.run(key, work);
}

/**
 * The running step's key, `<workflowId>-<stepId>` (StepOptions.key): the workflow chooses it deterministically, the
 * same for the step's local and regular attempts and across retries and worker restarts, so the area underneath
 * applies a repeated call once. Throws outside a step: a call without a key could be applied twice.
 */
export function idempotencyKey(): string {
  const key = stepKey.getStore();
  if (!key) throw new Error('no idempotency key: business activities run as steps (asSteps)');
  return key;
}
