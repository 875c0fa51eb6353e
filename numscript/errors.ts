import type { Pos } from './ast';

/**
 * What a script can get wrong, in Numscript's own terms. The language depends on nothing outside this folder, so the
 * ledger maps these codes to its API errors (the codes are the contract's, so the mapping keeps them).
 */
export type NumscriptErrorCode = 'COMPILATION_FAILED' | 'INSUFFICIENT_FUND' | 'VALIDATION';

export class NumscriptError extends Error {
  constructor(
    readonly code: NumscriptErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'NumscriptError';
  }
}

/** A syntax, type or script error, positioned at the offending token as the contract requires. */
export function compilationError(pos: Pos, message: string): NumscriptError {
  return new NumscriptError('COMPILATION_FAILED', `${pos.line}:${pos.column}: ${message}`);
}
