import { validationError } from '../../../lib/errors';
import { compileQuery, metadataField, type QueryField, type SqlCondition } from '../../../db/filter-query';

/**
 * The payments lists in Formance's filter language (db/filter-query.ts compiles it): a list's QueryTable names its
 * fields, their Formance snake_case aliases and its metadata column. This dialect has no `$like` and refuses an empty
 * `$and`/`$or`.
 */
type Field = Pick<QueryField, 'sql' | 'caseInsensitive'> & { kind: 'string' | 'number' | 'date' };

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

function resolveField(table: QueryTable, name: string): QueryField | undefined {
  const canonical = Object.hasOwn(table.aliases, name) ? table.aliases[name] : name;
  return metadataField(name, table.metadata) ?? (Object.hasOwn(table.fields, canonical) ? table.fields[canonical] : undefined);
}

/**
 * Parses and compiles `?query=`; `{}` matches everything. Throws VALIDATION for malformed JSON (an empty text too),
 * nesting deeper than MAX_JSON_DEPTH, unknown fields or operators.
 */
export function compilePaymentsQuery(text: string, table: QueryTable = PAYMENTS_TABLE): SqlCondition | undefined {
  if (text === '') throw validationError('query: not valid JSON');
  return compileQuery(text, { resolve: (name) => resolveField(table, name), fields: table.names.join(', ') });
}
