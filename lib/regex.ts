import { RE2JS } from 're2js';

/**
 * Regular expressions written by users (a chart of accounts' `.pattern`, CEL's `matches`) run on RE2 (the re2js port),
 * never on JavaScript's backtracking engine: RE2 matches in time linear in the input, so no pattern and input can hold
 * the event loop (`^(a+)+$` against 30 letters takes seconds in V8, doubling with each letter). The syntax and the
 * semantics are RE2's, the ones Formance's Go regexps have: no backreferences, no lookaround, and a match may start
 * anywhere unless the pattern anchors it.
 */
export interface LinearPattern {
  readonly source: string;
  /** Whether the pattern matches somewhere in `input` (Go's regexp.MatchString). */
  test(input: string): boolean;
}

/** Longest pattern accepted: RE2 compiles in time and memory linear in the pattern, so its size is bounded too. */
export const MAX_PATTERN_LENGTH = 1024;

const cache = new Map<string, LinearPattern>();

/**
 * Compiles `source` with RE2 semantics; compiled patterns are cached by source.
 * @throws Error whose message says why RE2 refuses the pattern (e.g. `invalid or unsupported Perl syntax: (?=`)
 */
export function compileLinear(source: string): LinearPattern {
  const cached = cache.get(source);
  if (cached) return cached;
  if (source.length > MAX_PATTERN_LENGTH) throw new Error(`pattern longer than ${MAX_PATTERN_LENGTH} characters`);
  let re: RE2JS;
  try {
    re = RE2JS.compile(source);
  } catch (error) {
    // re2js says "error parsing regexp: <reason>"; the reason is what a client can act on.
    throw new Error(((error as Error).message ?? String(error)).replace(/^error parsing regexp: /, ''));
  }
  const pattern: LinearPattern = { source, test: (input) => re.test(input) };
  if (cache.size >= 1000) cache.clear();
  cache.set(source, pattern);
  return pattern;
}
