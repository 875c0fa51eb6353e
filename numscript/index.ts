import type { Program } from './ast';
import { check } from './checker';
import { Interpreter, statementCalls } from './interpreter';
import { parse } from './parser';
import type { NumscriptResult, NumscriptStore } from './store';

export type { NumscriptPosting, NumscriptResult, NumscriptStore } from './store';
export { NumscriptError, type NumscriptErrorCode, type InsufficientFundDetails } from './errors';
export { FEATURES as NUMSCRIPT_FEATURES, type Feature as NumscriptFeature } from './features';

/** A parsed and type-checked script; opaque to callers, reusable across runs (running never mutates it). */
export interface NumscriptProgram {
  readonly ast: Program;
  /** Per statement, the balance()/overdraft() calls whose balances are fetched first; undefined when there are none. */
  readonly calls: ReturnType<typeof statementCalls>;
}

export interface CompileOptions {
  /**
   * Formance's experimental feature flags to allow (e.g. `experimental-oneof`); a script can also turn them on itself
   * with `#![feature("…")]`. A construct used without its flag is COMPILATION_FAILED naming the flag.
   */
  features?: Iterable<string>;
}

/** Compiled programs of recently seen sources: clients tend to send the same few scripts with other vars. */
const cache = new Map<string, NumscriptProgram>();
const CACHE_SIZE = 256;

/**
 * Parses and type-checks a Numscript source (valid programs are memoised per source and features; running never
 * mutates them).
 * @throws NumscriptError COMPILATION_FAILED `<line>:<column>: <message>` for syntax and type errors
 */
export function compileNumscript(source: string, options: CompileOptions = {}): NumscriptProgram {
  const given = options.features ? [...options.features].sort() : [];
  const key = given.length === 0 ? source : `${given.join(',')}\u0000${source}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const ast = parse(source);
  check(ast, new Set([...given, ...ast.pragmas]));
  const program: NumscriptProgram = Object.freeze({ ast, calls: statementCalls(ast) });
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(key, program);
  return program;
}

/**
 * Runs a compiled script with its JSON vars against the store (balances and account metadata as the caller has
 * locked them). Several `send` statements see the balances as changed by the earlier ones. The store is only read.
 * @throws NumscriptError INSUFFICIENT_FUND (a source cannot cover the amount; `details` says which, what was needed and
 *   what was available), COMPILATION_FAILED (missing or ill-typed var, allotment not adding up, mismatched assets,
 *   `*` from an unbounded or portioned source, a negative amount sent), VALIDATION (metadata or balance read by
 *   meta()/balance() that does not fit the variable)
 */
export function runNumscript(program: NumscriptProgram, vars: Record<string, unknown>, store: NumscriptStore): Promise<NumscriptResult> {
  return new Interpreter(program.ast, store, program.calls).run(vars ?? {});
}
