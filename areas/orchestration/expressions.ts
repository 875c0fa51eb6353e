import { Environment, serialize, type ASTNode } from '@marcbachmann/cel-js';
import { stringifyJson } from '../../lib/json';
import { compileLinear } from '../../lib/regex';
import { MAX_EXPRESSION_COST, runCost, staticCost } from './expression-cost';
import { EVENT_PAYLOADS, ListOf, MapOf, type PayloadShape } from './event-payloads';

/**
 * Trigger expressions are CEL (Common Expression Language: no loops, no I/O, no eval), evaluated against
 * `{event: <payload>}` as Formance's triggers are. Two guards keep one expression from holding a process:
 * - `matches` runs on RE2 (lib/regex.ts), as CEL specifies, not on JavaScript's backtracking engine. cel-js's built-in
 *   `string.matches` cannot be replaced through its API (a second overload of the same signature is refused), so the
 *   platform registers the global form `matches(string, string)` on RE2 and writes every `text.matches(pattern)` as
 *   `matches(text, pattern)` before compiling (rewrite()): the built-in is never called.
 * - a cost estimate (expression-cost.ts), checked at creation against an assumed event and before each evaluation
 *   against the event itself: an expression over MAX_EXPRESSION_COST is refused, never run.
 */

/** Any regular expression of an expression: RE2, so linear in the text (Go's regexp.MatchString semantics). */
function re2Matches(text: string, pattern: string): boolean {
  let compiled;
  try {
    compiled = compileLinear(pattern);
  } catch (error) {
    throw new Error(`matches: invalid regular expression ${stringifyJson(pattern)} (${(error as Error).message})`);
  }
  return compiled.test(text);
}

const withMatches = (env: Environment): Environment => env.registerFunction('matches(string, string): bool', re2Matches);

// Evaluation reads the payload as plain data (every field dyn), as cel-js's default environment does.
const evaluation = withMatches(new Environment({ unlistedVariablesAreDyn: true }));

/** The text of `node` with every receiver-form `matches` written in the global form; each operand parenthesized. */
function rewrite(node: ASTNode): string {
  const wrap = (child: ASTNode) => (child.op === 'id' || child.op === 'value' ? rewrite(child) : `(${rewrite(child)})`);
  const list = (items: ASTNode[]) => items.map(rewrite).join(', ');
  switch (node.op) {
    case 'value':
    case 'id':
      return serialize(node);
    case '.':
    case '.?':
      return `${wrap(node.args[0])}${node.op}${node.args[1]}`;
    case '[]':
      return `${wrap(node.args[0])}[${rewrite(node.args[1])}]`;
    case '[?]':
      return `${wrap(node.args[0])}[?${rewrite(node.args[1])}]`;
    case 'call':
      return `${node.args[0]}(${list(node.args[1])})`;
    case 'rcall': {
      const [name, receiver, args] = node.args;
      if (name === 'matches' && args.length === 1) return `matches(${rewrite(receiver)}, ${rewrite(args[0])})`;
      return `${wrap(receiver)}.${name}(${list(args)})`;
    }
    case 'list':
      return `[${list(node.args)}]`;
    case 'map':
      return `{${node.args.map(([key, value]) => `${rewrite(key)}: ${rewrite(value)}`).join(', ')}}`;
    case '?:':
      return `${wrap(node.args[0])} ? ${wrap(node.args[1])} : ${wrap(node.args[2])}`;
    case '!_':
      return `!${wrap(node.args)}`;
    case '-_':
      return `-${wrap(node.args)}`;
    default:
      return `${wrap(node.args[0])} ${node.op} ${wrap(node.args[1])}`;
  }
}

function hasReceiverMatches(node: ASTNode): boolean {
  if (node.op === 'rcall' && node.args[0] === 'matches') return true;
  const args: unknown = node.args;
  const children = Array.isArray(args) ? args.flat(2) : [args];
  return children.some((child) => child !== null && typeof child === 'object' && 'op' in child && hasReceiverMatches(child as ASTNode));
}

/** The source the platform compiles: the client's, with `matches` on RE2. Throws the parser's error. */
function platformSource(source: string): string {
  const { ast } = evaluation.parse(source);
  return hasReceiverMatches(ast) ? rewrite(ast) : source;
}

interface Compiled {
  run: ReturnType<Environment['parse']>;
  ast: ASTNode;
}
const cache = new Map<string, Compiled>();

/** Throws Error with the parser's reason when `source` does not compile. */
function compileExpression(source: string): Compiled {
  let compiled = cache.get(source);
  if (!compiled) {
    const run = evaluation.parse(platformSource(source));
    compiled = { run, ast: run.ast };
    if (cache.size > 1000) cache.clear();
    cache.set(source, compiled);
  }
  return compiled;
}

/** Why a constant pattern given to `matches` cannot compile on RE2 (backreferences, lookaround), or undefined. */
function patternError(node: ASTNode): string | undefined {
  if (node.op === 'call' && node.args[0] === 'matches' && node.args[1].length === 2) {
    const pattern = node.args[1][1];
    if (pattern.op === 'value' && typeof pattern.args === 'string') {
      try {
        compileLinear(pattern.args);
      } catch (error) {
        return `matches: invalid regular expression ${stringifyJson(pattern.args)} (${(error as Error).message}; RE2 syntax: no backreferences, no lookaround)`;
      }
    }
  }
  const args: unknown = node.args;
  const children = Array.isArray(args) ? args.flat(2) : [args];
  for (const child of children) {
    if (child !== null && typeof child === 'object' && 'op' in child) {
      const reason = patternError(child as ASTNode);
      if (reason) return reason;
    }
  }
  return undefined;
}

const overLimit = (cost: number, on: string) =>
  `estimated evaluation cost ${cost > 1e15 ? cost.toExponential(2) : cost} ${on} is over the limit of ${MAX_EXPRESSION_COST} (nested macros such as .all() or .map() multiply: see docs/orchestration.md)`;

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
    env = withMatches(new Environment());
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
  let compiled: Compiled;
  try {
    compiled = compileExpression(source);
  } catch (error) {
    return firstLine(error);
  }
  const result = environmentOf(eventType).check(platformSource(source));
  if (!result.valid) {
    const error = result.error as { code?: string } | undefined;
    const hint =
      error?.code === 'unknown_variable'
        ? ' (the one variable is event, the payload)'
        : error?.code === 'no_such_key'
          ? ` (not in a ${eventType} payload)`
          : '';
    return firstLine(result.error) + hint;
  }
  if (kind === 'filter' && result.type !== 'bool' && result.type !== 'dyn') return `the filter gives ${result.type}, not a bool`;
  const pattern = patternError(compiled.ast);
  if (pattern) return pattern;
  const cost = staticCost(compiled.ast);
  if (cost > MAX_EXPRESSION_COST) return overLimit(cost, 'on an event whose lists, maps and strings hold 16 elements');
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

/** The expression's value on `payload`, or the reason it has none; over the cost limit, it is not run at all. */
function run(source: string, payload: unknown): { value: unknown } | { error: string; overLimit?: true } {
  try {
    const compiled = compileExpression(source);
    const event = toCel(payload);
    const cost = runCost(compiled.ast, event);
    if (cost > MAX_EXPRESSION_COST) return { error: overLimit(cost, 'on this event'), overLimit: true };
    return { value: compiled.run({ event }) };
  } catch (error) {
    return { error: firstLine(error) };
  }
}

/**
 * A filter matches only when it evaluates to exactly `true`; an error or any other value is no match, and an
 * expression over the cost limit is no match with `overLimit` set (the caller refuses or records it).
 */
export function evaluateFilter(source: string, payload: unknown): { match: boolean; error?: string; overLimit?: true } {
  const result = run(source, payload);
  if ('error' in result) return { match: false, ...result };
  const { value } = result;
  return value === true
    ? { match: true }
    : { match: false, ...(typeof value !== 'boolean' ? { error: `the filter gave ${typeof value}, not a boolean` } : {}) };
}

/** Evaluates one variable expression to the string the workflow receives (objects as JSON, numbers exactly). */
export function evaluateVariable(source: string, payload: unknown): { value?: string; error?: string; overLimit?: true } {
  const result = run(source, payload);
  if ('error' in result) return result;
  const { value } = result;
  if (typeof value === 'string') return { value };
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') return { value: String(value) };
  if (value === null || value === undefined) return { value: '' };
  try {
    return { value: stringifyJson(value) };
  } catch (error) {
    return { error: firstLine(error) };
  }
}
