/**
 * SQL fragments for JSON that PostgreSQL writes in place of the API (reads by txid, the rendered list pages), so that
 * its text is what stringifyJson would write.
 */

/** A JSON string of a text expression (quotes and escapes as JSON.stringify writes them). */
export const jsonText = (sql: string): string => `to_json(${sql})::text`;

/** A timestamptz as Date.prototype.toISOString writes it: UTC, milliseconds truncated as node-postgres truncates them. */
export const isoTimestampText = (sql: string): string => `to_char(${sql} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
