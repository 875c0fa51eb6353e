import type { Knex } from 'knex';
import { NOTIFY_IF_EMITTED, OUTBOX_CHANNEL, outboxInsert, outboxParameters, type PlatformEvent } from '../../../db/outbox';
import { stringifyJson } from '../../../lib/json';
import { headJsonSql } from '../reads/transaction-json';
import type { LogType } from '../logs/log';
import type { VolumeMap } from '../reads/volumes';

/** A caller's data-modifying statement, run as a member of insertCommitted's WITH. */
export interface SqlStatement {
  sql: string;
  bindings: Knex.RawBinding[];
}

/**
 * The statements of the ledger's write pipeline (write-pipeline.ts), with named parameters. Locking the volume rows
 * is lockVolumes (volumes.ts); what follows writes what the pipeline decided.
 */

/**
 * Writes the final volumes of the touched rows, creates their accounts, and takes `count` txids and log ids with one
 * bump of the ledger row. That row is locked last, by this statement, and held only for insertCommitted and the
 * COMMIT, which keeps ids dense without serialising the rest of the work.
 * @returns the first txid and log id, or undefined when the ledger does not exist
 */
export async function writeVolumesAndTakeIds(
  trx: Knex.Transaction,
  ledger: string,
  rows: Array<{ address: string; asset: string; input: bigint; output: bigint }>,
  count: number,
): Promise<{ txid: bigint; logId: bigint } | undefined> {
  const accounts = [...new Set(rows.map((r) => r.address))].sort();
  const result = await trx.raw(
    `WITH v AS (
       UPDATE ledger_volumes v SET input = d.input, output = d.output
       FROM unnest(:addresses::text[], :assets::text[], :inputs::numeric[], :outputs::numeric[]) AS d(address, asset, input, output)
       WHERE v.ledger = :ledger AND v.address = d.address AND v.asset = d.asset RETURNING 1
     ), a AS (
       INSERT INTO ledger_accounts (ledger, address) SELECT :ledger, a FROM unnest(:accounts::text[]) AS a ON CONFLICT (ledger, address) DO NOTHING
     )
     UPDATE ledgers SET next_txid = next_txid + :count, next_log_id = next_log_id + :count WHERE name = :ledger
     RETURNING (next_txid - :count)::text AS txid, (next_log_id - :count)::text AS log_id`,
    {
      ledger,
      addresses: rows.map((r) => r.address),
      assets: rows.map((r) => r.asset),
      inputs: rows.map((r) => r.input.toString()),
      outputs: rows.map((r) => r.output.toString()),
      accounts,
      count,
    },
  );
  const first = result.rows[0] as { txid: string; log_id: string } | undefined;
  return first && { txid: BigInt(first.txid), logId: BigInt(first.log_id) };
}

/** One committed transaction's row and log, as insertCommitted writes them. */
export interface CommittedRow {
  id: bigint;
  timestamp: Date;
  reference?: string;
  postings: Array<{ source: string; destination: string; amount: bigint; asset: string }>;
  metadata: Record<string, string>;
  pre: unknown;
  post: unknown;
  logId: bigint;
  logType: LogType;
  logDate: Date;
  logData: unknown;
}

/**
 * One statement for everything else the writes commit: their transactions and logs, the idempotency results of the
 * keys they claimed (and the deletion of the claims of refused writes), their events (with one NOTIFY), and the
 * callers' own rows (CallerRows, a settle's hold rows), each a member of the WITH.
 */
export async function insertCommitted(
  trx: Knex.Transaction,
  ledger: string,
  insertedAt: Date,
  rows: CommittedRow[],
  keys: { scope: string; answered: Array<{ key: string; response: string }>; released: string[] },
  events: PlatformEvent[],
  statements: SqlStatement[],
): Promise<void> {
  // The rows go as one JSON document, written by one walk, rather than as a dozen array parameters: pg escapes every
  // element of a text or jsonb array one by one, which cost more API CPU than writing the JSON.
  const rowsJson = stringifyJson(
    rows.map((r) => ({
      id: r.id,
      ts: r.timestamp,
      ref: r.reference ?? null,
      postings: r.postings.map((p) => ({ source: p.source, destination: p.destination, amount: p.amount, asset: p.asset })),
      metadata: r.metadata,
      pre: r.pre,
      post: r.post,
      src: [...new Set(r.postings.map((p) => p.source))],
      dst: [...new Set(r.postings.map((p) => p.destination))],
      log_id: r.logId,
      log_type: r.logType,
      log_date: r.logDate,
      log: r.logData,
    })),
  );
  // The callers' statements are nested raw queries (each with its own bindings), members s0..sN of the WITH.
  const callers = Object.fromEntries(statements.map((statement, i) => [`s${i}`, trx.raw(statement.sql, statement.bindings)]));
  await trx.raw(
    `WITH x AS MATERIALIZED (
       SELECT * FROM json_to_recordset(:rows::json) AS x(id bigint, ts timestamptz, ref text, postings json, metadata jsonb, pre json, post json,
         src text[], dst text[], log_id bigint, log_type text, log_date timestamptz, log jsonb)
     ), t AS (
       INSERT INTO ledger_transactions (ledger, id, timestamp, reference, postings, metadata, pre_commit_volumes, post_commit_volumes, sources, destinations, inserted_at, json_head)
       SELECT :ledger, x.id, x.ts, x.ref, x.postings, x.metadata, x.pre, x.post, x.src, x.dst, :insertedAt, ${headJsonSql('x.ts', 'x.postings')} FROM x
     ), l AS (
       INSERT INTO ledger_logs (ledger, id, type, date, data) SELECT :ledger, x.log_id, x.log_type, x.log_date, x.log FROM x
     ), k AS (
       UPDATE idempotency_keys SET response = a.response FROM unnest(:answeredKeys::text[], :answers::text[]) AS a(key, response)
       WHERE scope = :scope AND idempotency_keys.key = a.key
     ), d AS (
       DELETE FROM idempotency_keys WHERE scope = :scope AND key = ANY(:releasedKeys::text[])
     ), e AS (:events), n AS (:notify)${statements.map((_, i) => `, s${i} AS (:s${i})`).join('')}
     SELECT count(*) AS notified FROM n`,
    {
      rows: rowsJson,
      ledger,
      insertedAt,
      scope: keys.scope,
      answeredKeys: keys.answered.map((k) => k.key),
      answers: keys.answered.map((k) => k.response),
      releasedKeys: keys.released,
      events: trx.raw(outboxInsert(), outboxParameters(events)),
      notify: trx.raw(NOTIFY_IF_EMITTED, [OUTBOX_CHANNEL]),
      ...callers,
    },
  );
}

/** Deletes the claims of keys whose writes were all refused, as their rollback would have. */
export async function releaseKeys(trx: Knex.Transaction, scope: string, keys: string[]): Promise<void> {
  if (keys.length > 0) await trx('idempotency_keys').where({ scope }).whereIn('key', keys).delete();
}

/** Merges the account metadata a script set into its accounts, in address order (one statement, any number). */
export async function mergeAccountMetadata(
  trx: Knex.Transaction,
  ledger: string,
  accountMetadata: Record<string, Record<string, string>>,
): Promise<void> {
  const addresses = Object.keys(accountMetadata).sort();
  if (addresses.length === 0) return;
  await trx.raw(
    `INSERT INTO ledger_accounts (ledger, address, metadata) SELECT :ledger, a, m FROM unnest(:addresses::text[], :metadata::jsonb[]) AS t(a, m)
     ON CONFLICT (ledger, address) DO UPDATE SET metadata = ledger_accounts.metadata || excluded.metadata`,
    { ledger, addresses, metadata: addresses.map((a) => stringifyJson(accountMetadata[a])) },
  );
}

/** The volume rows a VolumeMap holds for the given pair keys. */
export const volumeRows = (state: VolumeMap, keys: Iterable<string>) => [...keys].map((key) => state.get(key)!);

/** A metadata write's target and change, as writeMetadata applies them. */
export interface MetadataChange {
  target: { type: 'ACCOUNT'; id: string } | { type: 'TRANSACTION'; id: bigint };
  change: { set: Record<string, string> } | { delete: string };
}

/**
 * One statement for a metadata write: the change, then, only when it changed a row, the log id taken with one bump of
 * the ledger row (locked last, held to the COMMIT), the log and the events (with one NOTIFY). A transaction is
 * changed only if it exists and, for a delete, only if it has the key; an account's keys are merged into it, created
 * when absent.
 * @returns the log's id (undefined when nothing changed) and whether the target exists
 */
export async function writeMetadata(
  trx: Knex.Transaction,
  ledger: string,
  { target, change }: MetadataChange,
  log: { type: LogType; date: Date; data: unknown },
  events: PlatformEvent[],
): Promise<{ logId?: bigint; found: boolean }> {
  const account = target.type === 'ACCOUNT';
  const set = 'set' in change;
  // jsonb_exists is the `?` operator, which a raw statement's text cannot hold (knex reads it as a placeholder).
  const changeSql = account
    ? set
      ? `INSERT INTO ledger_accounts (ledger, address, metadata) VALUES (:ledger, :account, :metadata::jsonb)
         ON CONFLICT (ledger, address) DO UPDATE SET metadata = ledger_accounts.metadata || excluded.metadata RETURNING 1`
      : `UPDATE ledger_accounts SET metadata = metadata - :key::text WHERE ledger = :ledger AND address = :account AND jsonb_exists(metadata, :key) RETURNING 1`
    : set
      ? `UPDATE ledger_transactions SET metadata = metadata || :metadata::jsonb, updated_at = now() WHERE ledger = :ledger AND id = :txid RETURNING 1`
      : `UPDATE ledger_transactions SET metadata = metadata - :key::text, updated_at = now()
         WHERE ledger = :ledger AND id = :txid AND jsonb_exists(metadata, :key) RETURNING 1`;
  const found = account ? 'true' : 'EXISTS (SELECT 1 FROM ledger_transactions WHERE ledger = :ledger AND id = :txid)';
  const result = await trx.raw(
    `WITH c AS (${changeSql}),
     n AS (UPDATE ledgers SET next_log_id = next_log_id + 1 WHERE name = :ledger AND EXISTS (SELECT 1 FROM c) RETURNING next_log_id - 1 AS id),
     l AS (INSERT INTO ledger_logs (ledger, id, type, date, data) SELECT :ledger, n.id, :logType, :logDate, :logData::jsonb FROM n),
     e AS (:events), o AS (:notify)
     SELECT (SELECT id::text FROM n) AS log_id, ${found} AS found`,
    {
      ledger,
      account: account ? target.id : null,
      txid: account ? null : target.id.toString(),
      metadata: set ? stringifyJson(change.set) : null,
      key: set ? null : change.delete,
      logType: log.type,
      logDate: log.date,
      logData: stringifyJson(log.data),
      events: trx.raw(outboxInsert('EXISTS (SELECT 1 FROM n)'), outboxParameters(events)),
      notify: trx.raw(NOTIFY_IF_EMITTED, [OUTBOX_CHANNEL]),
    },
  );
  const row = result.rows[0] as { log_id: string | null; found: boolean };
  return { ...(row.log_id !== null ? { logId: BigInt(row.log_id) } : {}), found: row.found };
}
