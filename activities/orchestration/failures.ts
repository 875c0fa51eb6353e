import { AsyncLocalStorage } from 'node:async_hooks';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { isApiError } from '../../lib/errors';
import { NON_RETRYABLE_CODES } from '../../workflows/orchestration/retry';

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
      throw ApplicationFailure.create({ message: error.message, type: error.code, nonRetryable: NON_RETRYABLE_CODES.includes(error.code), cause: error });
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
 * `<workflowId>-<activityId>`: stable across retries of the activity and across worker restarts (activity ids are
 * chosen by the workflow, deterministically), so the area underneath applies a retried call once. A step called with
 * StepOptions brings its key, the same for its local and its regular attempts (a local activity's id is a sequence
 * number, not the step's id).
 */
export function idempotencyKey(): string {
  const given = stepKey.getStore();
  if (given) return given;
  const info = Context.current().info;
  return `${info.workflowExecution?.workflowId ?? 'standalone'}-${info.activityId}`;
}
