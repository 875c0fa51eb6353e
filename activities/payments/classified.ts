import { ApplicationFailure } from '@temporalio/common';
import { isApiError } from '../../lib/errors';

/**
 * Client errors of our own services (an uninstalled connector, an invalid directory, a user gone) cannot succeed on
 * retry: they leave the activity as non-retryable failures. So does a plugin's plain error marked `nonRetryable: true`
 * (the plugin contract's definitive refusal, for a plugin module that does not import Temporal's library). Everything
 * else is retried by Temporal.
 */
export async function classified<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isApiError(error) && error.status < 500)
      throw ApplicationFailure.create({ type: 'INVALID_ARGUMENT', message: error.message, nonRetryable: true });
    if (!(error instanceof ApplicationFailure) && error instanceof Error && (error as { nonRetryable?: unknown }).nonRetryable === true)
      throw ApplicationFailure.create({ type: 'PROVIDER_REJECTED', message: error.message, nonRetryable: true });
    throw error;
  }
}
