import { validationError } from '../../../lib/errors';

/**
 * Formance v1's contract expressions (`{"$gte": ["$balance", 0]}`), parsed once when a mapping is saved and evaluated
 * per account and asset a v1 write touches. The language is v1's: `$and`/`$or` over expressions, `$eq`/`$gt`/`$gte`/
 * `$lt`/`$lte` over two values, values being `"$balance"` (the balance after the write), integers, strings and
 * `{"$meta": key}` (the account's metadata value). Two deliberate differences: integers compare exactly (v1 compared
 * float64s), and an ordering over something that is not an integer is refused when the mapping is saved (v1 panicked
 * when it evaluated it). `{}`, an expression without operator, always holds: Formance's SDK sends every expression as
 * `{}` (its Expr model has no members, so it strips what the caller wrote).
 */
export type Expr =
  { op: 'true' } | { op: '$and' | '$or'; items: Expr[] } | { op: '$eq' | '$gt' | '$gte' | '$lt' | '$lte'; left: Value; right: Value };

type Value = { kind: 'balance' } | { kind: 'int'; value: bigint } | { kind: 'string'; value: string } | { kind: 'meta'; key: string };

export interface EvalContext {
  balance: bigint;
  metadata: Record<string, string>;
}

const ORDERINGS = new Set(['$gt', '$gte', '$lt', '$lte']);

function parseValue(raw: unknown, path: string): Value {
  if (raw === '$balance') return { kind: 'balance' };
  if (typeof raw === 'string') {
    if (raw.startsWith('$')) throw validationError(`${path}: unknown variable "${raw}" (only $balance exists)`);
    return { kind: 'string', value: raw };
  }
  if (typeof raw === 'bigint' || (typeof raw === 'number' && Number.isInteger(raw))) return { kind: 'int', value: BigInt(raw) };
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const entries = Object.entries(raw);
    if (entries.length === 1 && entries[0][0] === '$meta' && typeof entries[0][1] === 'string') return { kind: 'meta', key: entries[0][1] };
  }
  throw validationError(`${path}: a value is "$balance", an integer, a string or {"$meta": key}`);
}

/** @throws ApiError VALIDATION naming the path of the first malformed node */
export function parseExpr(raw: unknown, path: string): Expr {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw validationError(`${path}: an expression is an object`);
  const entries = Object.entries(raw);
  if (entries.length === 0) return { op: 'true' };
  if (entries.length !== 1) throw validationError(`${path}: an expression has exactly one operator`);
  const [op, args] = entries[0];
  if (!Array.isArray(args)) throw validationError(`${path}.${op}: expects an array`);
  if (op === '$and' || op === '$or') return { op, items: args.map((item, i) => parseExpr(item, `${path}.${op}[${i}]`)) };
  if (op === '$eq' || ORDERINGS.has(op)) {
    if (args.length !== 2) throw validationError(`${path}.${op}: expects two values`);
    const left = parseValue(args[0], `${path}.${op}[0]`);
    const right = parseValue(args[1], `${path}.${op}[1]`);
    if (ORDERINGS.has(op) && [left, right].some((v) => v.kind !== 'balance' && v.kind !== 'int')) {
      throw validationError(`${path}.${op}: orders integers only ("$balance" or an integer)`);
    }
    return { op: op as '$eq' | '$gt' | '$gte' | '$lt' | '$lte', left, right };
  }
  throw validationError(`${path}: unknown operator "${op}"`);
}

function valueOf(value: Value, ctx: EvalContext): bigint | string | undefined {
  switch (value.kind) {
    case 'balance':
      return ctx.balance;
    case 'int':
    case 'string':
      return value.value;
    case 'meta':
      return ctx.metadata[value.key];
  }
}

export function evalExpr(expr: Expr, ctx: EvalContext): boolean {
  switch (expr.op) {
    case 'true':
      return true;
    case '$and':
      return expr.items.every((item) => evalExpr(item, ctx));
    case '$or':
      return expr.items.some((item) => evalExpr(item, ctx));
    case '$eq':
      return valueOf(expr.left, ctx) === valueOf(expr.right, ctx);
    default: {
      // parseExpr lets only integers into an ordering.
      const left = valueOf(expr.left, ctx) as bigint;
      const right = valueOf(expr.right, ctx) as bigint;
      if (expr.op === '$gt') return left > right;
      if (expr.op === '$gte') return left >= right;
      if (expr.op === '$lt') return left < right;
      return left <= right;
    }
  }
}

/**
 * v1's account pattern: `*` matches any run of characters; anchored (v1's regexp was not, so `users:*` also matched
 * `a:users:1`). Matched without a regular expression: a backtracking `^a.*a.*a.*…$` takes time exponential in its
 * stars on a long address, while the literal parts, found leftmost in order, decide the match in one pass each.
 */
export function accountMatcher(pattern: string | undefined): (address: string) => boolean {
  if (pattern === undefined || pattern === '' || pattern === '*') return () => true;
  const parts = pattern.split('*');
  if (parts.length === 1) return (address) => address === pattern;
  const first = parts[0];
  const last = parts[parts.length - 1];
  const middle = parts.slice(1, -1).filter((part) => part !== '');
  return (address) => {
    if (address.length < first.length + last.length || !address.startsWith(first) || !address.endsWith(last)) return false;
    let at = first.length;
    const end = address.length - last.length;
    for (const part of middle) {
      const found = address.indexOf(part, at);
      if (found < 0 || found + part.length > end) return false;
      at = found + part.length;
    }
    return true;
  };
}
