import { isoTimestampText, jsonText } from '../../../db/json-sql';
import { jsonShape, membersSql } from '../../../db/json-shape';
import type { LedgerTransaction } from '../types';

/**
 * The JSON shapes of a transaction, each defined once (db/json-shape.ts): the JS view (views.ts) and the SQL that
 * PostgreSQL writes the same JSON text with, from a `ledger_transactions` row `t`. v2 is Formance's V2Tx (`id`,
 * reference omitted when unset) and is also the payload of ledger events; v1 is the spec's LedgerTransaction of op 11
 * (`txid`, exactly its seven fields, `reference` always a string, "" when unset).
 *
 * The SQL serves the read by txid (op 11): parsing four jsonb columns into objects (big amounts through the lossless
 * parser), converting volumes to BigInts and writing them all out again was most of the API's CPU for that request.
 * Its text is what stringifyJson writes for the JS view: same members in the same order, compact, big integers digit
 * for digit, dates as JS's toISOString. Postings and volume maps are stored as json, the compact text the writers
 * wrote (migration 020), and copied as they are: walking jsonb to write them out was most of what the read then cost
 * PostgreSQL. Parity is tested member for member (test/integration/ledger/transaction-reads.test.ts).
 */

/** Date.prototype.toISOString of a timestamptz, as a JSON string. */
const isoDate = (sql: string) => jsonText(isoTimestampText(sql));

/** Members of a jsonb object in its stored order (the order JSON.parse of its text gives), each written by `member`. */
const objectOf = (source: string, member: (key: string, value: string) => string, alias: string) =>
  `'{' || coalesce((SELECT string_agg(${member(`${alias}.key`, `${alias}.value`)}, ',') FROM jsonb_each(${source}) AS ${alias}), '') || '}'`;

/** A string-valued metadata object; a value of another type (v1 metadata may hold any JSON) keeps PostgreSQL's text. */
const metadataJson = `CASE WHEN t.metadata = '{}'::jsonb THEN '{}' ELSE ${objectOf('t.metadata', (key, value) => `${jsonText(key)} || ':' || ${value}::text`, 'm')} END`;

const timestamp = (timestampSql: string) => ({ js: (tx: LedgerTransaction) => tx.timestamp, sql: isoDate(timestampSql) });
const postings = (postingsSql: string) => ({ js: (tx: LedgerTransaction) => tx.postings, sql: `${postingsSql}::text` });
const shape = jsonShape<LedgerTransaction>();
const common = {
  metadata: { js: (tx: LedgerTransaction) => tx.metadata, sql: metadataJson },
  preCommitVolumes: { js: (tx: LedgerTransaction) => tx.preCommitVolumes, sql: 't.pre_commit_volumes::text' },
  postCommitVolumes: { js: (tx: LedgerTransaction) => tx.postCommitVolumes, sql: 't.post_commit_volumes::text' },
};

export const TRANSACTION_SHAPES = {
  v2: shape({
    id: { js: (tx) => tx.id, sql: 't.id::text' },
    timestamp: timestamp('t.timestamp'),
    postings: postings('t.postings'),
    reference: { js: (tx) => tx.reference, sql: jsonText('t.reference'), omitWhen: 't.reference IS NULL' },
    metadata: common.metadata,
    insertedAt: { js: (tx) => tx.insertedAt, sql: isoDate('t.inserted_at') },
    reverted: { js: (tx) => tx.reverted, sql: '(t.reverted_at IS NOT NULL)::text' },
    revertedAt: { js: (tx) => tx.revertedAt || undefined, sql: isoDate('t.reverted_at'), omitWhen: 't.reverted_at IS NULL' },
    preCommitVolumes: common.preCommitVolumes,
    postCommitVolumes: common.postCommitVolumes,
  }),
  v1: shape({
    txid: { js: (tx) => tx.id, sql: 't.id::text' },
    timestamp: timestamp('t.timestamp'),
    postings: postings('t.postings'),
    reference: { js: (tx) => tx.reference ?? '', sql: jsonText(`coalesce(t.reference, '')`) },
    metadata: common.metadata,
    preCommitVolumes: common.preCommitVolumes,
    postCommitVolumes: common.postCommitVolumes,
  }),
};

/**
 * Two members that no write changes once a transaction is inserted, its timestamp and postings, as the JSON text
 * `"timestamp":…,"postings":…` of the given column expressions. The writers store it with the row (json_head,
 * migration 022) and the reads copy it: writing the timestamp out (to_char) and casting the postings to text cost
 * PostgreSQL about 1.7 of the 9–10 µs of a read by txid, and op 11 served about 6% more reads per second without them
 * (decision 33). A row without it (written before migration 022, or one whose timestamp or postings an UPDATE named,
 * which the migration's trigger clears it for) is written out at each read instead, from the same members.
 */
export const headJsonSql = (timestampSql: string, postingsSql: string): string =>
  membersSql([
    ['timestamp', timestamp(timestampSql)],
    ['postings', postings(postingsSql)],
  ]);

const stored = { members: ['timestamp' as const, 'postings' as const], sql: 't.json_head' };
/** Each view's JSON text of a `ledger_transactions` row `t`. */
export const TRANSACTION_JSON_SQL: Record<'v1' | 'v2', string> = {
  v1: TRANSACTION_SHAPES.v1.sql({ stored }),
  v2: TRANSACTION_SHAPES.v2.sql({ stored }),
};

/**
 * The columns a transaction row is read with (TransactionRow), named rather than `*`: a prepared statement's result
 * type must not change when a migration adds a column, and json_head is for the rendered reads alone.
 */
export const TRANSACTION_ROW_COLUMNS = [
  'ledger',
  'id',
  'timestamp',
  'reference',
  'postings',
  'metadata',
  'pre_commit_volumes',
  'post_commit_volumes',
  'inserted_at',
  'reverted_at',
] as const;
