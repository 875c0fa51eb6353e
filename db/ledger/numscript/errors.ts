import { ApiError } from '../../../lib/errors';
import type { Pos } from './ast';

/** A syntax, type or script error, positioned at the offending token as the contract requires. */
export function compilationError(pos: Pos, message: string): ApiError {
  return new ApiError('COMPILATION_FAILED', `${pos.line}:${pos.column}: ${message}`);
}
