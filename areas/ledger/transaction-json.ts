/**
 * v1TransactionView and v2TransactionView (views.ts) of a `ledger_transactions` row `t`, written by PostgreSQL as the
 * JSON text stringifyJson would write for them: same members in the same order, compact, big integers digit for
 * digit, dates as JS's toISOString. For the read by txid (op 11): parsing four jsonb columns into objects (big amounts
 * through the lossless parser), converting volumes to BigInts and writing them all out again was most of the API's
 * CPU for that request. Parity with the JS views is tested member for member (transaction-json.test.ts).
 */

/** A JSON string of a text expression (quotes and escapes as JSON.stringify writes them). */
const jsonString = (sql: string) => `to_json(${sql})::text`;

/** Date.prototype.toISOString of a timestamptz (milliseconds, truncated as node-postgres truncates them). */
const isoDate = (sql: string) => `to_json(to_char(${sql} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text`;

/** Members of a jsonb object in its stored order (the order JSON.parse of its text gives), each written by `member`. */
const objectOf = (source: string, member: (key: string, value: string) => string, alias: string) =>
  `'{' || coalesce((SELECT string_agg(${member(`${alias}.key`, `${alias}.value`)}, ',') FROM jsonb_each(${source}) AS ${alias}), '') || '}'`;

const postingsJson = `'[' || coalesce((SELECT string_agg('{"source":' || (p.v->'source')::text || ',"destination":' || (p.v->'destination')::text
  || ',"amount":' || ((p.v->>'amount')::numeric)::text || ',"asset":' || (p.v->'asset')::text || '}', ',' ORDER BY p.n)
  FROM jsonb_array_elements(t.postings) WITH ORDINALITY AS p(v, n)), '') || ']'`;

/** A string-valued metadata object; a value of another type (v1 metadata may hold any JSON) keeps PostgreSQL's text. */
const metadataJson = `CASE WHEN t.metadata = '{}'::jsonb THEN '{}' ELSE ${objectOf('t.metadata', (key, value) => `${jsonString(key)} || ':' || ${value}::text`, 'm')} END`;

/**
 * Stored volumes, `{address: {asset: {input, output, balance}}}` as the writers store them (volumes.ts), in jsonb's
 * text with its separators made compact. jsonb writes `": "` after a key and `, "` before the next one; the keys here
 * are addresses, assets and input/output/balance, none of which can hold a quote, so those two sequences occur
 * nowhere else. jsonb's key order (by length, then bytes) is the order JSON.parse of that text gives, and it puts
 * input, output, balance in the order volumesOf does.
 */
const volumesJson = (column: string) => `replace(replace(${column}::text, '": ', '":'), ', "', ',"')`;

export const TRANSACTION_JSON_SQL: Record<'v1' | 'v2', string> = {
  v1: `'{"txid":' || t.id::text || ',"timestamp":' || ${isoDate('t.timestamp')} || ',"postings":' || ${postingsJson}
    || ',"reference":' || ${jsonString(`coalesce(t.reference, '')`)} || ',"metadata":' || ${metadataJson}
    || ',"preCommitVolumes":' || ${volumesJson('t.pre_commit_volumes')} || ',"postCommitVolumes":' || ${volumesJson('t.post_commit_volumes')} || '}'`,
  v2: `'{"id":' || t.id::text || ',"timestamp":' || ${isoDate('t.timestamp')} || ',"postings":' || ${postingsJson}
    || CASE WHEN t.reference IS NULL THEN '' ELSE ',"reference":' || ${jsonString('t.reference')} END || ',"metadata":' || ${metadataJson}
    || ',"insertedAt":' || ${isoDate('t.inserted_at')} || ',"reverted":' || (t.reverted_at IS NOT NULL)::text
    || CASE WHEN t.reverted_at IS NULL THEN '' ELSE ',"revertedAt":' || ${isoDate('t.reverted_at')} END
    || ',"preCommitVolumes":' || ${volumesJson('t.pre_commit_volumes')} || ',"postCommitVolumes":' || ${volumesJson('t.post_commit_volumes')} || '}'`,
};
