import type { Program } from './ast';
import { check } from './checker';
import { Interpreter } from './interpreter';
import { parse } from './parser';
import type { NumscriptResult, NumscriptStore } from './store';

export type { NumscriptPosting, NumscriptResult, NumscriptStore } from './store';
export { NumscriptError, type NumscriptErrorCode } from './errors';

/** A parsed and type-checked script; opaque to callers, reusable across runs (running never mutates it). */
export interface NumscriptProgram {
  readonly ast: Program;
}

/** Compiled programs of recently seen sources: clients tend to send the same few scripts with other vars. */
const cache = new Map<string, NumscriptProgram>();
const CACHE_SIZE = 256;

/**
 * Parses and type-checks a Numscript source (valid programs are memoised; running never mutates them).
 * @throws NumscriptError COMPILATION_FAILED `<line>:<column>: <message>` for syntax and type errors
 */
export function compileNumscript(source: string): NumscriptProgram {
  const cached = cache.get(source);
  if (cached) return cached;
  const ast = parse(source);
  check(ast);
  const program: NumscriptProgram = Object.freeze({ ast });
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(source, program);
  return program;
}

/**
 * Runs a compiled script with its JSON vars against the store (balances and account metadata as the caller has
 * locked them). Several `send` statements see the balances as changed by the earlier ones. The store is only read.
 * @throws NumscriptError INSUFFICIENT_FUND (a source cannot cover the amount), COMPILATION_FAILED (missing or ill-typed var,
 *   allotment not adding up, mismatched assets, `*` from an unbounded or portioned source), VALIDATION (metadata or
 *   balance read by meta()/balance() that does not fit the variable)
 */
export function runNumscript(program: NumscriptProgram, vars: Record<string, unknown>, store: NumscriptStore): Promise<NumscriptResult> {
  return new Interpreter(program.ast, store).run(vars ?? {});
}
