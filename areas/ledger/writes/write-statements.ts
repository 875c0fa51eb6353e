import type { Knex } from 'knex';
import { NOTIFY_IF_EMITTED, OUTBOX_CHANNEL, outboxInsert, outboxParameters, type PlatformEvent } from '../../../db/outbox';
import { stringifyJson } from '../../../lib/json';
import { headJsonSql, TRANSACTION_ROW_COLUMNS } from '../reads/transaction-json';
import type { LogType } from '../logs/log';
import type { VolumeMap } from '../reads/volumes';
import type { TransactionRow } from '../reads/transactions';

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
 * Writes the final volumes of the touched rows, creates their accounts, and takes `transactions` txids and `logs` log
 * ids with one bump of the ledger row. That row is locked last, by this statement, and held only for insertCommitted
 * and the COMMIT, which keeps ids dense without serialising the rest of the work.
 * @returns the first txid and log id, or undefined when the ledger does not exist
 */
export async function writeVolumesAndTakeIds(
  trx: Knex.Transaction,
  ledger: string,
  rows: Array<{ address: string; asset: string; input: bigint; output: bigint }>,
  count: { transactions: number; logs: number },
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
     UPDATE ledgers SET next_txid = next_txid + :transactions, next_log_id = next_log_id + :logs WHERE name = :ledger
     RETURNING (next_txid - :transactions)::text AS txid, (next_log_id - :logs)::text AS log_id`,
    {
      ledger,
      addresses: rows.map((r) => r.address),
      assets: rows.map((r) => r.asset),
      inputs: rows.map((r) => r.input.toString()),
      outputs: rows.map((r) => r.output.toString()),
      accounts,
      transactions: count.transactions,
      logs: count.logs,
    },
  );
  const first = result.rows[0] as { txid: string; log_id: string } | undefined;
  return first && { txid: BigInt(first.txid), logId: BigInt(first.log_id) };
}

/** A committed transaction's row, as insertCommitted writes it. */
export interface TransactionInsert {
  id: bigint;
  timestamp: Date;
  reference?: string;
  postings: Array<{ source: string; destination: string; amount: bigint; asset: string }>;
  metadata: Record<string, string>;
  pre: unknown;
  post: unknown;
}

/** An appended log. */
export interface LogInsert {
  id: bigint;
  type: LogType;
  date: Date;
  data: unknown;
}

/** The net change of a batch to a transaction written before it: keys set, keys deleted (disjoint), and its revert. */
export interface TransactionUpdate {
  id: bigint;
  set: Record<string, string>;
  deleted: string[];
  revertedAt?: Date;
}

/** The net change of a batch to an account's metadata: keys set, keys deleted (disjoint); `exists` when the batch locked its row. */
export interface AccountUpdate {
  address: string;
  exists: boolean;
  set: Record<string, string>;
  deleted: string[];
}

/** What a batch commits, in its last statement. */
export interface CommittedBatch {
  transactions: TransactionInsert[];
  logs: LogInsert[];
  transactionUpdates: TransactionUpdate[];
  accountUpdates: AccountUpdate[];
}

/**
 * One statement for everything else the writes commit, one member per table: their transactions and logs, the
 * metadata and reverts of transactions written before the batch, the accounts' metadata, the idempotency results of
 * the keys they claimed (and the deletion of the claims of refused writes), their events (with one NOTIFY), and the
 * callers' own rows (CallerRows, a settle's hold rows), each a member of the WITH.
 * An account that exists was locked by the batch, which changes it in place; an absent one is created with the keys set
 * (one created meanwhile by another writer gets them merged).
 */
export async function insertCommitted(
  trx: Knex.Transaction,
  ledger: string,
  insertedAt: Date,
  batch: CommittedBatch,
  keys: { scope: string; answered: Array<{ key: string; response: string }>; released: string[] },
  events: PlatformEvent[],
  statements: SqlStatement[],
): Promise<void> {
  // The rows go as JSON documents, written by one walk, rather than as a dozen array parameters: pg escapes every
  // element of a text or jsonb array one by one, which cost more API CPU than writing the JSON.
  const transactionsJson = stringifyJson(
    batch.transactions.map((r) => ({
      id: r.id,
      ts: r.timestamp,
      ref: r.reference ?? null,
      postings: r.postings.map((p) => ({ source: p.source, destination: p.destination, amount: p.amount, asset: p.asset })),
      metadata: r.metadata,
      pre: r.pre,
      post: r.post,
      src: [...new Set(r.postings.map((p) => p.source))],
      dst: [...new Set(r.postings.map((p) => p.destination))],
    })),
  );
  const logsJson = stringifyJson(batch.logs.map((l) => ({ id: l.id, type: l.type, date: l.date, data: l.data })));
  const changes = batch.transactionUpdates.map((u) => ({ id: u.id, set: u.set, del: u.deleted, reverted_at: u.revertedAt ?? null }));
  const annotated = batch.accountUpdates.filter((u) => u.exists).map((u) => ({ address: u.address, set: u.set, del: u.deleted }));
  const merged = batch.accountUpdates.filter((u) => !u.exists).sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  // The callers' statements are nested raw queries (each with its own bindings), members s0..sN of the WITH.
  const callers = Object.fromEntries(statements.map((statement, i) => [`s${i}`, trx.raw(statement.sql, statement.bindings)]));
  // Only the members this batch needs: PostgreSQL parses and plans every member of the statement at each batch, even
  // one over an empty list, and a batch of plain transactions (the common one) needs no update of transactions or
  // accounts.
  const members = [
    ...(batch.transactions.length > 0
      ? [
          `x AS MATERIALIZED (
       SELECT * FROM json_to_recordset(:transactions::json) AS x(id bigint, ts timestamptz, ref text, postings json, metadata jsonb, pre json, post json,
         src text[], dst text[])
     )`,
          `t AS (
       INSERT INTO ledger_transactions (ledger, id, timestamp, reference, postings, metadata, pre_commit_volumes, post_commit_volumes, sources, destinations, inserted_at, json_head)
       SELECT :ledger, x.id, x.ts, x.ref, x.postings, x.metadata, x.pre, x.post, x.src, x.dst, :insertedAt, ${headJsonSql('x.ts', 'x.postings')} FROM x
     )`,
        ]
      : []),
    `l AS (
       INSERT INTO ledger_logs (ledger, id, type, date, data)
       SELECT :ledger, l.id, l.type, l.date, l.data FROM json_to_recordset(:logs::json) AS l(id bigint, type text, date timestamptz, data jsonb)
     )`,
    ...(changes.length > 0
      ? [
          `u AS (
       UPDATE ledger_transactions SET metadata = (ledger_transactions.metadata - u.del) || u.set,
         reverted_at = coalesce(u.reverted_at, ledger_transactions.reverted_at), updated_at = now()
       FROM json_to_recordset(:changes::json) AS u(id bigint, set jsonb, del text[], reverted_at timestamptz)
       WHERE ledger_transactions.ledger = :ledger AND ledger_transactions.id = u.id
     )`,
        ]
      : []),
    ...(annotated.length > 0
      ? [
          `ad AS (
       UPDATE ledger_accounts SET metadata = (ledger_accounts.metadata - a.del) || a.set
       FROM json_to_recordset(:annotated::json) AS a(address text, set jsonb, del text[])
       WHERE ledger_accounts.ledger = :ledger AND ledger_accounts.address = a.address
     )`,
        ]
      : []),
    ...(merged.length > 0
      ? [
          `am AS (
       INSERT INTO ledger_accounts (ledger, address, metadata) SELECT :ledger, a.address, a.set FROM json_to_recordset(:merged::json) AS a(address text, set jsonb)
       ON CONFLICT (ledger, address) DO UPDATE SET metadata = ledger_accounts.metadata || excluded.metadata
     )`,
        ]
      : []),
    ...(keys.answered.length > 0
      ? [
          `k AS (
       UPDATE idempotency_keys SET response = a.response FROM unnest(:answeredKeys::text[], :answers::text[]) AS a(key, response)
       WHERE scope = :scope AND idempotency_keys.key = a.key
     )`,
        ]
      : []),
    ...(keys.released.length > 0 ? [`d AS (DELETE FROM idempotency_keys WHERE scope = :scope AND key = ANY(:releasedKeys::text[]))`] : []),
    `e AS (:events)`,
    `n AS (:notify)`,
    ...statements.map((_, i) => `s${i} AS (:s${i})`),
  ];
  await trx.raw(
    `WITH ${members.join(', ')}
     SELECT count(*) AS notified FROM n`,
    {
      transactions: transactionsJson,
      logs: logsJson,
      changes: stringifyJson(changes),
      annotated: stringifyJson(annotated),
      merged: stringifyJson(merged.map((u) => ({ address: u.address, set: u.set }))),
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

/** Locks and reads the metadata of the accounts that exist among `addresses`, in address order. */
export async function lockAccounts(trx: Knex.Transaction, ledger: string, addresses: string[]): Promise<Map<string, Record<string, string>>> {
  const found = new Map<string, Record<string, string>>();
  if (addresses.length === 0) return found;
  const result = await trx.raw(
    `SELECT address, metadata FROM ledger_accounts WHERE ledger = :ledger AND address = ANY(:addresses::text[]) ORDER BY address FOR UPDATE`,
    { ledger, addresses: [...new Set(addresses)].sort() },
  );
  for (const row of result.rows as Array<{ address: string; metadata: Record<string, string> | null }>) found.set(row.address, row.metadata ?? {});
  return found;
}

/** Locks and reads the transactions of `ids` that exist, in id order: the first lock a batch takes (a revert's original, a metadata target). */
export async function lockTransactions(trx: Knex.Transaction, ledger: string, ids: bigint[]): Promise<TransactionRow[]> {
  if (ids.length === 0) return [];
  const result = await trx.raw(
    `SELECT ${TRANSACTION_ROW_COLUMNS.join(', ')} FROM ledger_transactions WHERE ledger = :ledger AND id = ANY(:ids::bigint[]) ORDER BY id FOR UPDATE`,
    { ledger, ids: [...new Set(ids.map(String))] },
  );
  return result.rows as TransactionRow[];
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

/** A metadata write's target and change (MetadataWrite). */
export interface MetadataChange {
  target: { type: 'ACCOUNT'; id: string } | { type: 'TRANSACTION'; id: bigint };
  change: { set: Record<string, string> } | { delete: string };
}

/**
 * Claims idempotency keys in one statement: the keys inserted now are `fresh`; the others' stored hash and answer (a
 * second statement, only when some key was already there).
 */
export async function insertKeys(
  trx: Knex.Transaction,
  scope: string,
  keyed: Array<{ key: string; hash: string }>,
): Promise<{ fresh: Set<string>; stored: Map<string, { request_hash: string; response: string }> }> {
  const inserted = await trx.raw(
    `INSERT INTO idempotency_keys (scope, key, request_hash, response)
     SELECT :scope, k, h, '' FROM unnest(:keys::text[], :hashes::text[]) AS t(k, h) ON CONFLICT DO NOTHING RETURNING key`,
    { scope, keys: keyed.map((k) => k.key), hashes: keyed.map((k) => k.hash) },
  );
  const fresh = new Set((inserted.rows as Array<{ key: string }>).map((r) => r.key));
  const stale = keyed.filter((k) => !fresh.has(k.key)).map((k) => k.key);
  const stored = new Map<string, { request_hash: string; response: string }>();
  if (stale.length > 0) {
    const rows = await trx('idempotency_keys').where({ scope }).whereIn('key', stale).select('key', 'request_hash', 'response');
    for (const row of rows) stored.set(row.key, row);
  }
  return { fresh, stored };
}
