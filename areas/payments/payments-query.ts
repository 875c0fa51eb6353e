import { validationError } from '../../lib/errors';
import { MAX_JSON_DEPTH, parseJson } from '../../lib/json';

/**
 * The filter language of the payments list (Formance's go-libs query DSL): a JSON expression such as
 * `{"$and":[{"$match":{"status":"SUCCEEDED"}},{"$gte":{"amount":100}}]}`, compiled to a parameterised SQL condition.
 * Field names come from a whitelist and values are always bound, so no client text reaches the SQL.
 */
type Kind = 'string' | 'number' | 'date';
interface Field {
  sql: string;
  kind: Kind;
  caseInsensitive?: boolean;
  params?: unknown[];
}

const FIELDS: Record<string, Field> = {
  id: { sql: 'p.id', kind: 'string' },
  reference: { sql: 'p.reference', kind: 'string' },
  connectorID: { sql: 'p.connector_id', kind: 'string' },
  provider: { sql: 'c.provider', kind: 'string', caseInsensitive: true },
  type: { sql: 'p.type', kind: 'string' },
  status: { sql: 'p.status', kind: 'string' },
  scheme: { sql: 'p.scheme', kind: 'string' },
  asset: { sql: 'p.asset', kind: 'string' },
  sourceAccountID: { sql: 'p.source_account_id', kind: 'string' },
  destinationAccountID: { sql: 'p.destination_account_id', kind: 'string' },
  amount: { sql: 'p.amount', kind: 'number' },
  initialAmount: { sql: 'p.initial_amount', kind: 'number' },
  createdAt: { sql: 'p.created_at', kind: 'date' },
};
// Formance's snake_case names and the spec's `date` are accepted as aliases.
const ALIASES: Record<string, string> = {
  connector_id: 'connectorID',
  source_account_id: 'sourceAccountID',
  destination_account_id: 'destinationAccountID',
  initial_amount: 'initialAmount',
  created_at: 'createdAt',
  date: 'createdAt',
};
export const QUERY_FIELDS = [...Object.keys(FIELDS), ...Object.keys(ALIASES), 'metadata[<key>]'];

export interface SqlCondition {
  sql: string;
  bindings: unknown[];
}

/** The fields one list filters on: the same language serves payments and, with their own table, other v3 lists. */
export interface QueryTable {
  fields: Record<string, Field>;
  aliases: Record<string, string>;
  metadata: string;
  names: string[];
}
const PAYMENTS_TABLE: QueryTable = { fields: FIELDS, aliases: ALIASES, metadata: 'p.metadata', names: QUERY_FIELDS };

/** Accounts (`a`), as Formance's v3 account list filters them. */
const ACCOUNT_FIELDS: Record<string, Field> = {
  id: { sql: 'a.id', kind: 'string' },
  reference: { sql: 'a.reference', kind: 'string' },
  connectorID: { sql: 'a.connector_id', kind: 'string' },
  type: { sql: 'a.type', kind: 'string' },
  name: { sql: 'a.name', kind: 'string' },
  defaultAsset: { sql: 'a.default_asset', kind: 'string' },
  createdAt: { sql: 'a.created_at', kind: 'date' },
};
const ACCOUNT_ALIASES: Record<string, string> = { connector_id: 'connectorID', default_asset: 'defaultAsset', created_at: 'createdAt' };
export const ACCOUNTS_TABLE: QueryTable = {
  fields: ACCOUNT_FIELDS,
  aliases: ACCOUNT_ALIASES,
  metadata: 'a.metadata',
  names: [...Object.keys(ACCOUNT_FIELDS), ...Object.keys(ACCOUNT_ALIASES), 'metadata[<key>]'],
};

/** Payment initiations (`i`), as Formance's v3 initiation list filters them. */
const INITIATION_FIELDS: Record<string, Field> = {
  id: { sql: 'i.id', kind: 'string' },
  reference: { sql: 'i.reference', kind: 'string' },
  connectorID: { sql: 'i.connector_id', kind: 'string' },
  provider: { sql: 'c.provider', kind: 'string', caseInsensitive: true },
  type: { sql: 'i.type', kind: 'string' },
  status: { sql: 'i.status', kind: 'string' },
  asset: { sql: 'i.asset', kind: 'string' },
  amount: { sql: 'i.amount', kind: 'number' },
  sourceAccountID: { sql: 'i.source_account_id', kind: 'string' },
  destinationAccountID: { sql: 'i.destination_account_id', kind: 'string' },
  createdAt: { sql: 'i.created_at', kind: 'date' },
  scheduledAt: { sql: 'i.scheduled_at', kind: 'date' },
};
const INITIATION_ALIASES: Record<string, string> = {
  connector_id: 'connectorID',
  source_account_id: 'sourceAccountID',
  destination_account_id: 'destinationAccountID',
  created_at: 'createdAt',
  scheduled_at: 'scheduledAt',
};
export const INITIATIONS_TABLE: QueryTable = {
  fields: INITIATION_FIELDS,
  aliases: INITIATION_ALIASES,
  metadata: 'i.metadata',
  names: [...Object.keys(INITIATION_FIELDS), ...Object.keys(INITIATION_ALIASES), 'metadata[<key>]'],
};

function resolveField(table: QueryTable, name: string): Field {
  const metadata = /^metadata\[(.+)\]$/.exec(name);
  // The key is bound, not written into the SQL: knex reads a `?` in a raw statement's text as a placeholder, so a key
  // holding one made the statement fail (a 500) however well its quotes were escaped.
  if (metadata) return { sql: `${table.metadata} ->> ?`, kind: 'string', params: [metadata[1]] };
  const field = table.fields[table.aliases[name] ?? name];
  if (!field) throw validationError(`query: unknown field "${name}"; fields are ${table.names.join(', ')}`);
  return field;
}

function value(field: Field, name: string, raw: unknown): unknown {
  if (field.kind === 'number') {
    const ok = typeof raw === 'bigint' || (typeof raw === 'number' && Number.isInteger(raw)) || (typeof raw === 'string' && /^-?\d+$/.test(raw));
    if (!ok) throw validationError(`query: field "${name}" takes an integer`);
    return String(raw);
  }
  if (field.kind === 'date') {
    if (typeof raw !== 'string' || Number.isNaN(Date.parse(raw))) throw validationError(`query: field "${name}" takes an ISO 8601 date-time`);
    return new Date(raw);
  }
  if (typeof raw !== 'string') throw validationError(`query: field "${name}" takes a string`);
  return field.caseInsensitive ? raw.toLowerCase() : raw;
}

/** The one `{field: value}` pair of a comparison operator. */
function pair(op: string, operand: unknown): [string, unknown] {
  if (!operand || typeof operand !== 'object' || Array.isArray(operand) || Object.keys(operand).length !== 1) {
    throw validationError(`query: ${op} takes an object with exactly one field`);
  }
  return Object.entries(operand)[0];
}

const COMPARISONS: Record<string, string> = { $lt: '<', $lte: '<=', $gt: '>', $gte: '>=' };

function compile(table: QueryTable, expression: unknown): SqlCondition {
  if (!expression || typeof expression !== 'object' || Array.isArray(expression) || Object.keys(expression).length !== 1) {
    throw validationError('query: each expression is an object with exactly one operator');
  }
  const [op, operand] = Object.entries(expression)[0];
  if (op === '$and' || op === '$or') {
    if (!Array.isArray(operand) || operand.length === 0) throw validationError(`query: ${op} takes a non-empty array`);
    const parts = operand.map((e) => compile(table, e));
    return { sql: `(${parts.map((p) => p.sql).join(op === '$and' ? ' AND ' : ' OR ')})`, bindings: parts.flatMap((p) => p.bindings) };
  }
  if (op === '$not') {
    const inner = compile(table, operand);
    return { sql: `(NOT COALESCE(${inner.sql}, false))`, bindings: inner.bindings };
  }
  const [name, raw] = pair(op, operand);
  const field = resolveField(table, name);
  const column = field.caseInsensitive ? `lower(${field.sql})` : field.sql;
  const cp = field.params ?? [];
  if (op === '$match') return { sql: `(${column} = ?)`, bindings: [...cp, value(field, name, raw)] };
  if (op === '$in') {
    if (!Array.isArray(raw) || raw.length === 0) throw validationError('query: $in takes a non-empty array of values');
    return { sql: `(${column} IN (${raw.map(() => '?').join(', ')}))`, bindings: [...cp, ...raw.map((v) => value(field, name, v))] };
  }
  if (op === '$exists') {
    if (typeof raw !== 'boolean') throw validationError('query: $exists takes true or false');
    return { sql: `(${field.sql} IS ${raw ? 'NOT ' : ''}NULL)`, bindings: cp };
  }
  const comparison = COMPARISONS[op];
  if (!comparison)
    throw validationError(`query: unknown operator "${op}"; operators are $match, $lt, $lte, $gt, $gte, $exists, $in, $and, $or, $not`);
  if (field.kind === 'string') throw validationError(`query: ${op} applies to numbers and dates, not "${name}"`);
  return { sql: `(${column} ${comparison} ?)`, bindings: [...cp, value(field, name, raw)] };
}

/** Parses and compiles `?query=`; `{}` matches everything. Throws VALIDATION for malformed JSON, nesting deeper than MAX_JSON_DEPTH, unknown fields or operators. */
export function compilePaymentsQuery(text: string, table: QueryTable = PAYMENTS_TABLE): SqlCondition | undefined {
  let expression: unknown;
  try {
    // Bounded like a request body: compile() recurses once per level, and so would PostgreSQL on the SQL it writes.
    expression = parseJson(text, { maxDepth: MAX_JSON_DEPTH });
  } catch (error) {
    const deep = error instanceof SyntaxError && error.message.startsWith('nesting deeper');
    throw validationError(deep ? `query: ${error.message}` : 'query: not valid JSON');
  }
  if (expression && typeof expression === 'object' && !Array.isArray(expression) && Object.keys(expression).length === 0) return undefined;
  return compile(table, expression);
}
