import type { ASTNode } from '@marcbachmann/cel-js';

/**
 * An upper estimate of what evaluating a CEL expression costs, so that no trigger can hold a process: cel-js has no
 * cost tracking of its own, and CEL's comprehensions multiply (eight nested `.all()` over 10-element lists are 10^8
 * steps, seconds of a blocked event loop). One unit is about one node evaluated or one element or character copied
 * or compared; `MAX_EXPRESSION_COST` is Kubernetes' per-expression limit for CEL (its PerCallLimit).
 *
 * The estimate walks the AST once, with the sizes of the values each node can give: a comprehension costs its range's
 * length times its body, `+` and comparisons cost the elements and characters of their operands, `matches` the
 * characters of its text and pattern (RE2 is linear). At trigger creation the event is unknown, so each list, map and
 * string read from it is taken to hold `ASSUMED_EVENT_SIZE` elements or characters; before each evaluation the same
 * estimate runs with the event itself, and an expression over the limit is not evaluated.
 */
export const MAX_EXPRESSION_COST = 1_000_000;
export const ASSUMED_EVENT_SIZE = 16;

/**
 * What a node can give: `len`, the longest list, map or string in the value (so the most iterations over it or
 * over anything in it), and `total`, its elements and characters counted together. `values`, when known, are the
 * actual values it can be (the event, its parts, literals), for exact sizes of the event's parts at run time.
 */
interface Size {
  len: number;
  total: number;
  values?: unknown[];
}
interface Estimate extends Size {
  cost: number;
}

const SCALAR: Size = { len: 1, total: 1 };
// Candidate values kept per node: past this, only their sizes are (a node over a union of many parts of the event).
const MAX_CANDIDATES = 10_000;
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
const SCALAR_FUNCTIONS = new Set([
  'size',
  'contains',
  'startsWith',
  'endsWith',
  'indexOf',
  'lastIndexOf',
  'matches',
  'int',
  'uint',
  'double',
  'bool',
  'has',
  'at',
  'hasValue',
  'timestamp',
  'duration',
  'getDate',
  'getDayOfMonth',
  'getDayOfWeek',
  'getDayOfYear',
  'getFullYear',
  'getHours',
  'getMilliseconds',
  'getMinutes',
  'getMonth',
  'getSeconds',
  'type',
]);
// A function that builds a string or a list from its arguments (string(), split(), join(), trim(), hex(), ...) gives at
// most twice their elements and characters, and at least GROWTH (string(-1.5e-300) is 10 characters, an int 20).
const GROWTH = 32;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array) && !(value instanceof Map);

const measured = new WeakMap<object, { len: number; total: number }>();

/** The exact sizes of a value (memoized per object, so the event is walked once however many nodes read it). */
function measure(value: unknown): { len: number; total: number } {
  if (typeof value === 'string') return { len: Math.max(1, value.length), total: Math.max(1, value.length) };
  if (value === null || typeof value !== 'object') return SCALAR;
  const known = measured.get(value);
  if (known) return known;
  let result: { len: number; total: number };
  if (value instanceof Uint8Array) result = { len: Math.max(1, value.length), total: Math.max(1, value.length) };
  else {
    const entries: Array<[unknown, unknown]> = Array.isArray(value)
      ? value.map((v) => [undefined, v])
      : value instanceof Map
        ? [...value.entries()]
        : isRecord(value)
          ? Object.entries(value)
          : [];
    let len = Math.max(1, entries.length);
    let total = 1;
    for (const [key, item] of entries) {
      const k = key === undefined ? { len: 0, total: 0 } : measure(key);
      const v = measure(item);
      len = Math.max(len, k.len, v.len);
      total += k.total + v.total;
    }
    result = { len, total };
  }
  measured.set(value, result);
  return result;
}

function known(values: unknown[]): Size {
  let len = 1;
  let total = 1;
  for (const value of values) {
    const size = measure(value);
    len = Math.max(len, size.len);
    total = Math.max(total, size.total);
  }
  return values.length <= MAX_CANDIDATES ? { len, total, values } : { len, total };
}

/** What iterating a value gives: a list's elements, a map's keys (CEL iterates over keys). */
function children(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (value instanceof Map) return [...value.keys()];
  if (isRecord(value)) return Object.keys(value);
  return [];
}

/** What indexing a value can give: a list's elements, a map's values. */
function members(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (value instanceof Map) return [...value.values()];
  if (isRecord(value)) return Object.values(value);
  return [];
}

function field(value: unknown, name: string): unknown {
  if (value instanceof Map) return value.get(name);
  return isRecord(value) && Object.hasOwn(value, name) ? value[name] : undefined;
}

function index(value: unknown, key: unknown): unknown {
  if (Array.isArray(value) && (typeof key === 'bigint' || typeof key === 'number')) return value[Number(key)];
  return typeof key === 'string' ? field(value, key) : undefined;
}

/** A part of each candidate (a field, an element), or the container's own sizes when the candidates are unknown. */
function select(from: Size, part: (value: unknown) => unknown): Size {
  if (!from.values) return { len: from.len, total: from.total };
  return known(from.values.map(part).filter((v) => v !== undefined));
}

/** What iterating (`children`) or indexing (`members`) each candidate gives, and the most iterations over one. */
function elements(from: Size, of: (value: unknown) => unknown[] = children): { size: Size; iterations: number } {
  if (!from.values) return { size: { len: from.len, total: from.total }, iterations: from.len };
  let iterations = 0;
  const items: unknown[] = [];
  for (const value of from.values) {
    const list = of(value);
    iterations = Math.max(iterations, list.length);
    if (items.length <= MAX_CANDIDATES) items.push(...list);
  }
  return { size: items.length <= MAX_CANDIDATES ? known(items) : { len: from.len, total: from.total }, iterations };
}

const bounds = (size: Size): Size => ({ len: size.len, total: size.total });
const joined = (a: Size, b: Size): Size =>
  a.values && b.values ? known([...a.values, ...b.values]) : { len: Math.max(a.len, b.len), total: Math.max(a.total, b.total) };
const built = (inputs: Size[]): Size => {
  const total = Math.max(GROWTH, 2 * inputs.reduce((sum, s) => sum + s.total, 0));
  return { len: total, total };
};

type Scope = ReadonlyMap<string, Size>;

function estimate(node: ASTNode, scope: Scope): Estimate {
  switch (node.op) {
    case 'value':
      return { ...known([node.args]), cost: 1 };
    case 'id':
      return { ...(scope.get(node.args) ?? SCALAR), cost: 1 };
    case '.':
    case '.?': {
      const [target, name] = node.args;
      const t = estimate(target, scope);
      return { ...select(t, (v) => field(v, name)), cost: t.cost + 1 };
    }
    case '[]':
    case '[?]': {
      const [target, key] = node.args;
      const t = estimate(target, scope);
      const k = estimate(key, scope);
      const size = k.values?.length === 1 ? select(t, (v) => index(v, k.values![0])) : elements(t, members).size;
      return { ...size, cost: t.cost + k.cost + k.total + 1 };
    }
    case 'list': {
      const items = node.args.map((item) => estimate(item, scope));
      return {
        len: Math.max(1, items.length, ...items.map((i) => i.len)),
        total: 1 + items.reduce((sum, i) => sum + i.total, 0),
        cost: 1 + items.reduce((sum, i) => sum + i.cost, 0),
      };
    }
    case 'map': {
      const parts = node.args.flatMap(([key, value]) => [estimate(key, scope), estimate(value, scope)]);
      return {
        len: Math.max(1, node.args.length, ...parts.map((p) => p.len)),
        total: 1 + parts.reduce((sum, p) => sum + p.total, 0),
        cost: 1 + parts.reduce((sum, p) => sum + p.cost, 0),
      };
    }
    case '?:': {
      const [condition, yes, no] = node.args.map((arg) => estimate(arg, scope));
      return { ...joined(yes, no), cost: condition.cost + Math.max(yes.cost, no.cost) + 1 };
    }
    case '||':
    case '&&': {
      const [a, b] = node.args.map((arg) => estimate(arg, scope));
      return { ...SCALAR, cost: a.cost + b.cost + 1 };
    }
    case '!_':
    case '-_':
      return { ...SCALAR, cost: estimate(node.args, scope).cost + 1 };
    case 'call': {
      const [name, args] = node.args;
      return call(name, undefined, args, scope);
    }
    case 'rcall': {
      const [name, receiver, args] = node.args;
      return call(name, receiver, args, scope);
    }
    default: {
      const [a, b] = node.args.map((arg) => estimate(arg, scope));
      const cost = a.cost + b.cost + 1;
      if (node.op === '+') return { len: a.len + b.len, total: a.total + b.total, cost: cost + a.total + b.total };
      if (node.op === '-' || node.op === '*' || node.op === '/' || node.op === '%') return { ...SCALAR, cost };
      // Comparisons and `in` walk their operands' elements and characters.
      return { ...SCALAR, cost: cost + a.total + b.total };
    }
  }
}

function call(name: string, receiver: ASTNode | undefined, args: ASTNode[], scope: Scope): Estimate {
  const variable = args[0]?.op === 'id' ? args[0].args : undefined;
  if (receiver && variable !== undefined && COMPREHENSIONS.has(name) && args.length >= 2) {
    const range = estimate(receiver, scope);
    const { size: element, iterations } = elements(range);
    const inner = new Map(scope).set(variable, element);
    const body = args.slice(1).map((arg) => estimate(arg, inner));
    const cost = range.cost + 1 + Math.max(1, iterations) * (1 + body.reduce((sum, b) => sum + b.cost, 0));
    if (name === 'filter') return { ...bounds(range), cost };
    if (name === 'map') {
      const out = body[body.length - 1];
      return { len: Math.max(range.len, out.len), total: 1 + Math.max(1, iterations) * out.total, cost };
    }
    return { ...SCALAR, cost };
  }
  if (name === 'bind' && receiver?.op === 'id' && receiver.args === 'cel' && variable !== undefined && args.length === 3) {
    const value = estimate(args[1], scope);
    const body = estimate(args[2], new Map(scope).set(variable, value));
    return { ...bounds(body), cost: value.cost + body.cost + 1 };
  }
  if (name === 'has' && !receiver) return { ...SCALAR, cost: args.reduce((sum, arg) => sum + estimate(arg, scope).cost, 1) };
  const inputs = [...(receiver ? [receiver] : []), ...args].map((arg) => estimate(arg, scope));
  const cost = inputs.reduce((sum, i) => sum + i.cost + i.total, 1);
  if (name === 'dyn' && inputs.length === 1) return { ...inputs[0], cost };
  return { ...(SCALAR_FUNCTIONS.has(name) ? SCALAR : built(inputs)), cost };
}

/** The estimated cost of `ast` before any event: each list, map and string read from it holds ASSUMED_EVENT_SIZE. */
export function staticCost(ast: ASTNode): number {
  return estimate(ast, new Map([['event', { len: ASSUMED_EVENT_SIZE, total: ASSUMED_EVENT_SIZE }]])).cost;
}

/** The estimated cost of `ast` on this event (`event` as the evaluation receives it). */
export function runCost(ast: ASTNode, event: unknown): number {
  return estimate(ast, new Map([['event', known([event])]])).cost;
}
