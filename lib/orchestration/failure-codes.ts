/** The failure of a step that its instance's abort fence refused: the instance was aborted before the step committed. */
export const ABORTED = 'ABORTED';

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
  // The instance was aborted (its abort fence refused the step): the stage ends "canceled".
  ABORTED,
];
