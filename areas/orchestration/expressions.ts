import { Environment, parse } from '@marcbachmann/cel-js';
import { stringifyJson } from '../../lib/json';
import { EVENT_PAYLOADS, ListOf, MapOf, type PayloadShape } from './event-payloads';

/**
 * Trigger expressions are CEL (Common Expression Language: no loops, no I/O, no eval), evaluated against
 * `{event: <payload>}` as Formance's triggers are. Compiled programs are cached by source.
 */
type Program = ReturnType<typeof parse>;
const cache = new Map<string, Program>();

/** Throws Error with the parser's reason when `source` does not compile. */
function compileExpression(source: string): Program {
  let program = cache.get(source);
  if (!program) {
    program = parse(source);
    if (cache.size > 1000) cache.clear();
    cache.set(source, program);
  }
  return program;
}

/** Declares `shape` in `env` (objects as types named by their path) and returns its CEL type name. */
function declare(env: Environment, name: string, shape: PayloadShape): string {
  if (typeof shape === 'string') return shape;
  if (shape instanceof ListOf) return `list<${declare(env, name, shape.item)}>`;
  if (shape instanceof MapOf) return `map<string, ${declare(env, name, shape.value)}>`;
  const fields = Object.fromEntries(Object.entries(shape).map(([field, value]) => [field, declare(env, `${name}.${field}`, value)]));
  env.registerType(name, { fields });
  return name;
}

// An environment costs far more than a check: one per event type, made when a trigger first needs it.
const environments = new Map<string, Environment>();
function environmentOf(eventType: string): Environment {
  const key = Object.hasOwn(EVENT_PAYLOADS, eventType) ? eventType : '';
  let env = environments.get(key);
  if (!env) {
    env = new Environment();
    // Any payload is a JSON object: a type the platform does not emit still gets `event` as a map of anything.
    env.registerVariable('event', key ? declare(env, key, EVENT_PAYLOADS[key]) : 'map<string, dyn>');
    environments.set(key, env);
  }
  return env;
}

/**
 * Why `source` cannot work on events of `eventType`, or undefined when it can: it must parse, use no variable but
 * `event`, call only functions and macros CEL has, read only fields the event's payload has (for the types in
 * EVENT_PAYLOADS) and, for a filter, give a boolean whenever its type is known before any event.
 */
export function checkExpression(source: string, eventType: string, kind: 'filter' | 'variable'): string | undefined {
  const result = environmentOf(eventType).check(source);
  if (!result.valid) {
    const error = result.error as { code?: string } | undefined;
    const hint = error?.code === 'unknown_variable' ? ' (the one variable is event, the payload)' : error?.code === 'no_such_key' ? ` (not in a ${eventType} payload)` : '';
    return firstLine(result.error) + hint;
  }
  if (kind === 'filter' && result.type !== 'bool' && result.type !== 'dyn') return `the filter gives ${result.type}, not a bool`;
  return undefined;
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
