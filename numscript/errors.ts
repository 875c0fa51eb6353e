import type { Pos } from './ast';

/**
 * What a script can get wrong, in Numscript's own terms. The language depends on nothing outside this folder, so the
 * ledger maps these codes to its API errors (the codes are the contract's, so the mapping keeps them).
 */
export type NumscriptErrorCode = 'COMPILATION_FAILED' | 'INSUFFICIENT_FUND' | 'VALIDATION';

/**
 * The facts of an INSUFFICIENT_FUND, for a program to act on: the source that fell short (`account`: the one account,
 * or the first of `accounts` when the source combines several), the asset (with its color, as posted), the amount it
 * had to give and the amount it could give. Amounts are decimal strings (they may exceed 2^53).
 */
export interface InsufficientFundDetails {
  account: string;
  accounts: string[];
  asset: string;
  needed: string;
  available: string;
}

export class NumscriptError extends Error {
  constructor(
    readonly code: NumscriptErrorCode,
    message: string,
    readonly details?: InsufficientFundDetails,
  ) {
    super(message);
    this.name = 'NumscriptError';
  }
}

/** A syntax, type or script error, positioned at the offending token as the contract requires. */
export function compilationError(pos: Pos, message: string): NumscriptError {
  return new NumscriptError('COMPILATION_FAILED', `${pos.line}:${pos.column}: ${message}`);
}
