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

/**
 * `<workflowId>-<activityId>`: stable across retries of the activity and across worker restarts (activity ids are
 * chosen by the workflow, deterministically), so the area underneath applies a retried call once.
 */
export function idempotencyKey(): string {
  const info = Context.current().info;
  return `${info.workflowExecution?.workflowId ?? 'standalone'}-${info.activityId}`;
}
