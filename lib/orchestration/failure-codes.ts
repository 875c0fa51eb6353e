/**
 * Failure types (ApiError codes carried as ApplicationFailure types) that fail a stage at once instead of being
 * retried: waiting cannot fix them. Shared by the workflow's retry policy and the activities' classification.
 */
export const NON_RETRYABLE_CODES: string[] = [
  'VALIDATION',
  'COMPILATION_FAILED',
  'CONFLICT',
  'NOT_FOUND',
  'LEDGER_NOT_FOUND',
  'NO_POSTINGS',
  'METADATA_OVERRIDE',
  'HOLD_CLOSED',
  'NO_SCRIPT',
];
