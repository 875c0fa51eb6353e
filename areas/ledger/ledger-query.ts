import { validationError } from '../../lib/errors';
import { MAX_JSON_DEPTH, parseJson } from '../../lib/json';
import { addressPatternRegex } from './rules';

/**
 * Formance's filter language on the ledger's lists (go-libs query DSL): a JSON expression such as
 * `{"$and":[{"$match":{"address":"users:"}},{"$gte":{"balance[USD/2]":100}}]}`, compiled to a parameterised SQL
 * condition. Each list names its fields (a resolver); values are always bound, so no client text reaches the SQL.
 */
export type FieldKind = 'string' | 'number' | 'date' | 'boolean' | 'address' | 'addresses';

export interface QueryField {
  kind: FieldKind;
  /** SQL of the value; `?` placeholders are bound to `params`, before the compared value. */
  sql: string;
  params?: unknown[];
  /** A field that is a set of values (an account's balances): `op` holds for at least one of them. */
  any?: (op: string) => string;
}

export interface SqlCondition {
  sql: string;
  bindings: unknown[];
}

/** Resolves a field name of one list, or undefined when the list has no such field. */
export type FieldResolver = (name: string) => QueryField | undefined;

const COMPARISONS: Record<string, string> = { $lt: '<', $lte: '<=', $gt: '>', $gte: '>=' };
const OPERATORS = '$match, $like, $lt, $lte, $gt, $gte, $exists, $in, $and, $or, $not';

function value(field: QueryField, name: string, raw: unknown): unknown {
  switch (field.kind) {
    case 'number': {
      const ok = typeof raw === 'bigint' || (typeof raw === 'number' && Number.isInteger(raw)) || (typeof raw === 'string' && /^-?\d+$/.test(raw));
      if (!ok) throw validationError(`query: field "${name}" takes an integer`);
      return String(raw);
    }
    case 'date':
      if (typeof raw !== 'string' || Number.isNaN(Date.parse(raw))) throw validationError(`query: field "${name}" takes an ISO 8601 date-time`);
      return new Date(raw);
    case 'boolean':
      if (typeof raw !== 'boolean') throw validationError(`query: field "${name}" takes true or false`);
      return raw;
    default:
      if (typeof raw !== 'string') throw validationError(`query: field "${name}" takes a string`);
      return raw;
  }
}

/** Integers are compared as numeric, whatever the column: a value beyond a bigint column's range is then just unequal, not an error. */
const placeholder = (field: QueryField) => (field.kind === 'number' ? '?::numeric' : '?');

/** `{field: value}` with exactly one member. */
function pair(op: string, operand: unknown): [string, unknown] {
  if (!operand || typeof operand !== 'object' || Array.isArray(operand) || Object.keys(operand).length !== 1) {
    throw validationError(`query: ${op} takes an object with exactly one field`);
  }
  return Object.entries(operand)[0];
}

/** An address field matched Formance's way: a plain address is equality, `users:` one level, `users:...` any depth. */
function matchAddress(field: QueryField, name: string, raw: unknown): SqlCondition {
  const address = value({ kind: 'string', sql: '' }, name, raw) as string;
  const regex = addressPatternRegex(address);
  const params = field.params ?? [];
  if (field.kind === 'addresses') {
    return regex
      ? { sql: `(EXISTS (SELECT 1 FROM unnest(${field.sql}) a WHERE a ~ ?))`, bindings: [...params, regex] }
      : { sql: `(${field.sql} @> ARRAY[?]::text[])`, bindings: [...params, address] };
  }
  return regex ? { sql: `(${field.sql} ~ ?)`, bindings: [...params, regex] } : { sql: `(${field.sql} = ?)`, bindings: [...params, address] };
}

function compile(expression: unknown, resolve: FieldResolver, fields: string): SqlCondition {
  if (!expression || typeof expression !== 'object' || Array.isArray(expression) || Object.keys(expression).length !== 1) {
    throw validationError('query: each expression is an object with exactly one operator');
  }
  const [op, operand] = Object.entries(expression)[0];
  if (op === '$and' || op === '$or') {
    if (!Array.isArray(operand)) throw validationError(`query: ${op} takes an array`);
    // As in logic and in Formance (whose CLI sends `{"$and": []}` when no filter is given): an empty $and holds for
    // every row, an empty $or for none.
    if (operand.length === 0) return { sql: op === '$and' ? '(TRUE)' : '(FALSE)', bindings: [] };
    const parts = operand.map((item) => compile(item, resolve, fields));
    return { sql: `(${parts.map((p) => p.sql).join(op === '$and' ? ' AND ' : ' OR ')})`, bindings: parts.flatMap((p) => p.bindings) };
  }
  if (op === '$not') {
    const inner = compile(operand, resolve, fields);
    return { sql: `(NOT COALESCE(${inner.sql}, false))`, bindings: inner.bindings };
  }
  const [name, raw] = pair(op, operand);
  // `{"$exists": {"metadata": "key"}}`: whether the metadata key is set.
  if (op === '$exists' && name === 'metadata' && typeof raw === 'string')
    return compile({ $exists: { [`metadata[${raw}]`]: true } }, resolve, fields);
  const field = resolve(name);
  if (!field) throw validationError(`query: unknown field "${name}"; fields are ${fields}`);
  const params = field.params ?? [];
  if (field.any && (op === '$match' || COMPARISONS[op]))
    return { sql: `(${field.any(op === '$match' ? '=' : COMPARISONS[op])})`, bindings: [...params, value(field, name, raw)] };
  if (op === '$match') {
    if (field.kind === 'address' || field.kind === 'addresses') return matchAddress(field, name, raw);
    return { sql: `(${field.sql} = ${placeholder(field)})`, bindings: [...params, value(field, name, raw)] };
  }
  if (op === '$like') {
    if (field.kind !== 'string' && field.kind !== 'address') throw validationError(`query: $like applies to text fields, not "${name}"`);
    return { sql: `(${field.sql} LIKE ?)`, bindings: [...params, value({ kind: 'string', sql: '' }, name, raw)] };
  }
  if (op === '$in') {
    if (!Array.isArray(raw) || raw.length === 0) throw validationError('query: $in takes a non-empty array of values');
    if (field.kind === 'addresses') throw validationError(`query: $in does not apply to "${name}"; use $or of $match`);
    if (field.any) throw validationError(`query: $in does not apply to "${name}"`);
    return {
      sql: `(${field.sql} IN (${raw.map(() => placeholder(field)).join(', ')}))`,
      bindings: [...params, ...raw.map((v) => value(field, name, v))],
    };
  }
  if (op === '$exists') {
    if (typeof raw !== 'boolean') throw validationError('query: $exists takes true or false');
    if (field.any) throw validationError(`query: $exists does not apply to "${name}"`);
    return { sql: `(${field.sql} IS ${raw ? 'NOT ' : ''}NULL)`, bindings: params };
  }
  const comparison = COMPARISONS[op];
  if (!comparison) throw validationError(`query: unknown operator "${op}"; operators are ${OPERATORS}`);
  if (field.kind !== 'number' && field.kind !== 'date') throw validationError(`query: ${op} applies to numbers and dates, not "${name}"`);
  return { sql: `(${field.sql} ${comparison} ${placeholder(field)})`, bindings: [...params, value(field, name, raw)] };
}

/**
 * Parses and compiles a `query` for one list; `{}` matches everything (undefined).
 * @throws ApiError VALIDATION for malformed JSON, nesting deeper than MAX_JSON_DEPTH, an unknown field or operator, a value of the wrong type
 */
export function compileLedgerQuery(text: string | undefined, resolve: FieldResolver, fields: string): SqlCondition | undefined {
  if (text === undefined || text === '') return undefined;
  let expression: unknown;
  try {
    // Bounded like a request body: compile() recurses once per level, and so would PostgreSQL on the SQL it writes.
    expression = parseJson(text, { maxDepth: MAX_JSON_DEPTH });
  } catch (error) {
    const deep = error instanceof SyntaxError && error.message.startsWith('nesting deeper');
    throw validationError(deep ? `query: ${error.message}` : 'query: not valid JSON');
  }
  if (expression && typeof expression === 'object' && !Array.isArray(expression) && Object.keys(expression).length === 0) return undefined;
  return compile(expression, resolve, fields);
}

/** `metadata[key]` of a metadata column. */
export function metadataField(name: string, column: string): QueryField | undefined {
  const match = /^metadata\[(.+)\]$/.exec(name);
  return match ? { kind: 'string', sql: `(${column} ->> ?)`, params: [match[1]] } : undefined;
}

/**
 * The fields of an account, for the accounts list and count, the aggregated balances and the volumes: `address`,
 * `metadata[key]`, `balance[ASSET]` (the account's balance in that asset) and `balance` (any asset's).
 * `ledgerSql` and `addressSql` name the row's ledger and address; `metadataSql` its metadata.
 */
export function accountFields(ledgerSql: string, addressSql: string, metadataSql: string): FieldResolver {
  return (name) => {
    if (name === 'address' || name === 'account') return { kind: 'address', sql: addressSql };
    const metadata = metadataField(name, metadataSql);
    if (metadata) return metadata;
    const asset = /^balance\[(.+)\]$/.exec(name);
    if (asset) {
      return {
        kind: 'number',
        sql: `(SELECT bv.input - bv.output FROM ledger_volumes bv WHERE bv.ledger = ${ledgerSql} AND bv.address = ${addressSql} AND bv.asset = ?)::numeric`,
        params: [asset[1]],
      };
    }
    if (name === 'balance') {
      const any = (op: string) =>
        `EXISTS (SELECT 1 FROM ledger_volumes bv WHERE bv.ledger = ${ledgerSql} AND bv.address = ${addressSql} AND bv.input - bv.output ${op} ?::numeric)`;
      return { kind: 'number', sql: '', any };
    }
    return undefined;
  };
}

export const ACCOUNT_FIELDS = 'address, metadata[<key>], balance[<asset>], balance';
