import { ApiError, isApiError } from '../../../lib/errors';

/** Formance v1's error codes (its ErrorsEnum): the SDK reads a v1 error only when its code is one of them. */
const V1_CODES = new Set([
  'INTERNAL',
  'INSUFFICIENT_FUND',
  'VALIDATION',
  'CONFLICT',
  'NO_SCRIPT',
  'COMPILATION_FAILED',
  'METADATA_OVERRIDE',
  'NOT_FOUND',
  'TIMEOUT',
]);

/**
 * Our code as v1 says it. v2-only business codes become VALIDATION, as Formance's v1 controllers answer them
 * (no postings, an already reverted transaction). LEDGER_NOT_FOUND stays: the spec's v1 read names it (op 11).
 */
export function v1ErrorCode(code: string): string {
  if (V1_CODES.has(code)) return code;
  if (code === 'NO_POSTINGS' || code === 'ALREADY_REVERT' || code === 'LEDGER_ALREADY_EXISTS') return 'VALIDATION';
  return code;
}

/** Runs a v1 handler's area call and restates its error, if any, in v1's codes (same status, message and details). */
export async function inV1Terms<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isApiError(error) || v1ErrorCode(error.code) === error.code) throw error;
    throw new ApiError(v1ErrorCode(error.code), error.message, {
      status: error.status,
      details: error.details,
      headers: error.headers,
      cause: error,
    });
  }
}
