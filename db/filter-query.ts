import { validationError } from '../lib/errors';
import { MAX_JSON_DEPTH, parseJson } from '../lib/json';

/**
 * The one compiler of Formance's filter language (go-libs query DSL), for every list that takes a `query`: a JSON
 * expression such as `{"$and":[{"$match":{"status":"SUCCEEDED"}},{"$gte":{"amount":100}}]}`, compiled to a
 * parameterised SQL condition. Each list describes its fields (a QueryLanguage); values are always bound, so no client
 * text reaches the SQL. Pure: it reads no database.
 */
export type FieldKind = 'string' | 'number' | 'date' | 'boolean';

export interface QueryField {
  kind: FieldKind;
  /** SQL of the value; `?` placeholders are bound to `params`, before the compared value. */
  sql: string;
  params?: unknown[];
  /** Compared lower-cased ($match, $in, comparisons): the column is wrapped in lower() and the value lower-cased. */
  caseInsensitive?: boolean;
  /** `$match` of this field, when it is not equality (the ledger's address patterns); the value is a string. */
  match?: (value: string) => SqlCondition;
  /** A field holding several values (a text[]): `$match` is `match`, and `$in` and `$like` do not apply. */
  array?: boolean;
  /** A field that is a set of values (an account's balances): `op` holds for at least one of them. */
  any?: (op: string) => string;
}

export interface SqlCondition {
  sql: string;
  bindings: unknown[];
}

/** Resolves a field name of one list, or undefined when the list has no such field. */
export type FieldResolver = (name: string) => QueryField | undefined;

/** What one list accepts. The ledger's lists and the payments lists differ only by the options below. */
export interface QueryLanguage {
  resolve: FieldResolver;
  /** The field names, as the unknown-field error lists them. */
  fields: string;
  /** `$like` on text fields (the ledger's lists). */
  like?: boolean;
  /**
   * An empty `$and` holds for every row and an empty `$or` for none, as in logic and in Formance's ledger (whose CLI
   * sends `{"$and": []}` when no filter is given); without it they are refused.
   */
  emptyConnectives?: boolean;
  /** `{"$exists": {"metadata": "key"}}` for `{"$exists": {"metadata[key]": true}}` (the ledger's lists). */
  metadataExists?: boolean;
}

const COMPARISONS: Record<string, string> = { $lt: '<', $lte: '<=', $gt: '>', $gte: '>=' };

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
      return field.caseInsensitive ? raw.toLowerCase() : raw;
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

const operatorsOf = (language: QueryLanguage) => `$match, ${language.like ? '$like, ' : ''}$lt, $lte, $gt, $gte, $exists, $in, $and, $or, $not`;

function compile(expression: unknown, language: QueryLanguage): SqlCondition {
  if (!expression || typeof expression !== 'object' || Array.isArray(expression) || Object.keys(expression).length !== 1) {
    throw validationError('query: each expression is an object with exactly one operator');
  }
  const [op, operand] = Object.entries(expression)[0];
  if (op === '$and' || op === '$or') {
    if (language.emptyConnectives) {
      if (!Array.isArray(operand)) throw validationError(`query: ${op} takes an array`);
      if (operand.length === 0) return { sql: op === '$and' ? '(TRUE)' : '(FALSE)', bindings: [] };
    } else if (!Array.isArray(operand) || operand.length === 0) throw validationError(`query: ${op} takes a non-empty array`);
    const parts = operand.map((item) => compile(item, language));
    return { sql: `(${parts.map((p) => p.sql).join(op === '$and' ? ' AND ' : ' OR ')})`, bindings: parts.flatMap((p) => p.bindings) };
  }
  if (op === '$not') {
    const inner = compile(operand, language);
    return { sql: `(NOT COALESCE(${inner.sql}, false))`, bindings: inner.bindings };
  }
  const [name, raw] = pair(op, operand);
  if (op === '$exists' && language.metadataExists && name === 'metadata' && typeof raw === 'string')
    return compile({ $exists: { [`metadata[${raw}]`]: true } }, language);
  const field = language.resolve(name);
  if (!field) throw validationError(`query: unknown field "${name}"; fields are ${language.fields}`);
  const params = field.params ?? [];
  const column = field.caseInsensitive ? `lower(${field.sql})` : field.sql;
  if (field.any && (op === '$match' || COMPARISONS[op]))
    return { sql: `(${field.any(op === '$match' ? '=' : COMPARISONS[op])})`, bindings: [...params, value(field, name, raw)] };
  if (op === '$match') {
    if (field.match) return field.match(value({ kind: 'string', sql: '' }, name, raw) as string);
    return { sql: `(${column} = ${placeholder(field)})`, bindings: [...params, value(field, name, raw)] };
  }
  if (op === '$like' && language.like) {
    if (field.kind !== 'string' || field.array) throw validationError(`query: $like applies to text fields, not "${name}"`);
    return { sql: `(${column} LIKE ?)`, bindings: [...params, value(field, name, raw)] };
  }
  if (op === '$in') {
    if (!Array.isArray(raw) || raw.length === 0) throw validationError('query: $in takes a non-empty array of values');
    if (field.array) throw validationError(`query: $in does not apply to "${name}"; use $or of $match`);
    if (field.any) throw validationError(`query: $in does not apply to "${name}"`);
    return {
      sql: `(${column} IN (${raw.map(() => placeholder(field)).join(', ')}))`,
      bindings: [...params, ...raw.map((v) => value(field, name, v))],
    };
  }
  if (op === '$exists') {
    if (typeof raw !== 'boolean') throw validationError('query: $exists takes true or false');
    if (field.any) throw validationError(`query: $exists does not apply to "${name}"`);
    return { sql: `(${field.sql} IS ${raw ? 'NOT ' : ''}NULL)`, bindings: params };
  }
  const comparison = COMPARISONS[op];
  if (!comparison) throw validationError(`query: unknown operator "${op}"; operators are ${operatorsOf(language)}`);
  if (field.kind !== 'number' && field.kind !== 'date') throw validationError(`query: ${op} applies to numbers and dates, not "${name}"`);
  return { sql: `(${column} ${comparison} ${placeholder(field)})`, bindings: [...params, value(field, name, raw)] };
}

/**
 * Parses and compiles a list's `query`; `{}`, "" and an absent query match everything (undefined).
 * @throws ApiError VALIDATION for malformed JSON, nesting deeper than MAX_JSON_DEPTH, an unknown field or operator, a
 * value of the wrong type; each message names the field or operator
 */
export function compileQuery(text: string | undefined, language: QueryLanguage): SqlCondition | undefined {
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
  return compile(expression, language);
}

/** `metadata[key]` of a metadata column; the key is bound (a `?` in a raw statement's text would be read as a placeholder). */
export function metadataField(name: string, column: string): QueryField | undefined {
  const match = /^metadata\[(.+)\]$/.exec(name);
  return match ? { kind: 'string', sql: `(${column} ->> ?)`, params: [match[1]] } : undefined;
}
