import { compileNumscript } from '../../../numscript';

/** The message of the COMPILATION_FAILED error `source` raises; fails the test when it compiles or fails otherwise. */
export function compileError(source: string): string {
  try {
    compileNumscript(source);
  } catch (error) {
    expect((error as { code: string }).code).toBe('COMPILATION_FAILED');
    return (error as Error).message;
  }
  throw new Error('expected a compilation error');
}
