import { parse } from '@marcbachmann/cel-js';
import { stringifyJson } from '../../lib/json';

/**
 * Trigger expressions are CEL (Common Expression Language: no loops, no I/O, no eval), evaluated against
 * `{event: <payload>}` as Formance's triggers are. Compiled programs are cached by source.
 */
type Program = ReturnType<typeof parse>;
const cache = new Map<string, Program>();

/** Throws Error with the parser's reason when `source` does not compile. */
export function compileExpression(source: string): Program {
  let program = cache.get(source);
  if (!program) {
    program = parse(source);
    if (cache.size > 1000) cache.clear();
    cache.set(source, program);
  }
  return program;
}

/**
 * JSON integers become CEL ints (BigInt), not doubles: amounts are integers, and CEL refuses mixed arithmetic such as
 * `event.amount / 10` on a double.
 */
function toCel(value: unknown): unknown {
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (Array.isArray(value)) return value.map(toCel);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toCel(v)]));
  return value;
}

const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0];

/** A filter matches only when it evaluates to exactly `true`; an error or any other value is no match. */
export function evaluateFilter(source: string, payload: unknown): { match: boolean; error?: string } {
  try {
    const value = compileExpression(source)({ event: toCel(payload) });
    return value === true ? { match: true } : { match: false, ...(typeof value !== 'boolean' ? { error: `the filter gave ${typeof value}, not a boolean` } : {}) };
  } catch (error) {
    return { match: false, error: firstLine(error) };
  }
}

/** Evaluates one variable expression to the string the workflow receives (objects as JSON, numbers exactly). */
export function evaluateVariable(source: string, payload: unknown): { value?: string; error?: string } {
  try {
    const value = compileExpression(source)({ event: toCel(payload) });
    if (typeof value === 'string') return { value };
    if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') return { value: String(value) };
    if (value === null || value === undefined) return { value: '' };
    return { value: stringifyJson(value) };
  } catch (error) {
    return { error: firstLine(error) };
  }
}

export { firstLine as expressionError };
