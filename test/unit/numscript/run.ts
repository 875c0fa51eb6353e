import { compileNumscript, runNumscript, type NumscriptResult } from '../../../numscript';
import { MemoryStore } from './memory-store';

/** Compiles and runs `source`; postings are returned as compact `source>destination:amount ASSET` strings. */
export async function run(
  source: string,
  options: { vars?: Record<string, unknown>; store?: MemoryStore } = {},
): Promise<NumscriptResult & { moves: string[] }> {
  const result = await runNumscript(compileNumscript(source), options.vars ?? {}, options.store ?? new MemoryStore());
  return { ...result, moves: result.postings.map((p) => `${p.source}>${p.destination}:${p.amount} ${p.asset}`) };
}

/** The ApiError `promise` rejects with, as `CODE: message`. */
export async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return `${(error as { code: string }).code}: ${(error as Error).message}`;
  }
  throw new Error('expected the script to fail');
}
