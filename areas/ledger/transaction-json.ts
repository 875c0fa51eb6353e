import { isoTimestampText, jsonText } from '../../db/json-sql';

/**
 * v1TransactionView and v2TransactionView (views.ts) of a `ledger_transactions` row `t`, written by PostgreSQL as the
 * JSON text stringifyJson would write for them: same members in the same order, compact, big integers digit for
 * digit, dates as JS's toISOString. For the read by txid (op 11): parsing four jsonb columns into objects (big amounts
 * through the lossless parser), converting volumes to BigInts and writing them all out again was most of the API's
 * CPU for that request. Postings and volume maps are stored as json, the compact text the writers wrote (migration
 * 020), and copied as they are: walking jsonb to write them out was most of what the read then cost PostgreSQL.
 * Parity with the JS views is tested member for member (test/integration/ledger/transaction-reads.test.ts).
 */

/** Date.prototype.toISOString of a timestamptz, as a JSON string. */
const isoDate = (sql: string) => jsonText(isoTimestampText(sql));

/**
 * Two members that no write changes once a transaction is inserted, its timestamp and postings, as the JSON text
 * `"timestamp":…,"postings":…` of the given column expressions. The writers store it with the row (json_head,
 * migration 022) and the reads copy it: writing the timestamp out (to_char) and casting the postings to text cost
 * PostgreSQL about 1.7 of the 9–10 µs of a read by txid, and op 11 served about 6% more reads per second without them
 * (decision 33). A row without it (written before migration 022, or one whose timestamp or postings an UPDATE named,
 * which the migration's trigger clears it for) is written out here at each read instead.
 */
export const headJsonSql = (timestamp: string, postings: string): string =>
  `'"timestamp":' || ${isoDate(timestamp)} || ',"postings":' || ${postings}::text`;

const head = `coalesce(t.json_head, ${headJsonSql('t.timestamp', 't.postings')})`;
const volumes = `'"preCommitVolumes":' || t.pre_commit_volumes::text || ',"postCommitVolumes":' || t.post_commit_volumes::text`;

/** Members of a jsonb object in its stored order (the order JSON.parse of its text gives), each written by `member`. */
const objectOf = (source: string, member: (key: string, value: string) => string, alias: string) =>
  `'{' || coalesce((SELECT string_agg(${member(`${alias}.key`, `${alias}.value`)}, ',') FROM jsonb_each(${source}) AS ${alias}), '') || '}'`;

/** A string-valued metadata object; a value of another type (v1 metadata may hold any JSON) keeps PostgreSQL's text. */
const metadataJson = `CASE WHEN t.metadata = '{}'::jsonb THEN '{}' ELSE ${objectOf('t.metadata', (key, value) => `${jsonText(key)} || ':' || ${value}::text`, 'm')} END`;

export const TRANSACTION_JSON_SQL: Record<'v1' | 'v2', string> = {
  v1: `'{"txid":' || t.id::text || ',' || ${head}
    || ',"reference":' || ${jsonText(`coalesce(t.reference, '')`)} || ',"metadata":' || ${metadataJson} || ',' || ${volumes} || '}'`,
  v2: `'{"id":' || t.id::text || ',' || ${head}
    || CASE WHEN t.reference IS NULL THEN '' ELSE ',"reference":' || ${jsonText('t.reference')} END || ',"metadata":' || ${metadataJson}
    || ',"insertedAt":' || ${isoDate('t.inserted_at')} || ',"reverted":' || (t.reverted_at IS NOT NULL)::text
    || CASE WHEN t.reverted_at IS NULL THEN '' ELSE ',"revertedAt":' || ${isoDate('t.reverted_at')} END
    || ',' || ${volumes} || '}'`,
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
