import type { Knex } from 'knex';
import { hashRequest } from '../../db/idempotency';
import { NOTIFY_IF_EMITTED, OUTBOX_CHANNEL, outboxInsert, outboxParameters, type PlatformEvent } from '../../db/outbox';
import { ApiError } from '../../lib/errors';
import { parseJson, stringifyJson } from '../../lib/json';
import { mergeAccountMetadata } from './commit';
import { logTransactionView } from './log';
import { scriptedWrite, scriptPairs } from './script';
import { headJsonSql } from './transaction-json';
import type { CreateTransactionInput, LedgerTransaction, Posting, VolumesByAccount } from './types';
import { applyPostings, lockVolumes, type VolumeMap } from './volumes';
import { lockedBalance, sharedReads, sharedStatements, type SqlStatement, type WriteHooks } from './write-hooks';
import { v2TransactionView } from './views';

/** One write of a batch: a normalized request (see createTransaction), its optional Idempotency-Key, and hooks. */
export interface BatchedWrite {
  request: CreateTransactionInput;
  idempotencyKey?: string;
  hooks?: WriteHooks;
}

/** What one write of a batch became: committed, answered from its idempotency key, or refused on its own. */
export type WriteOutcome = { transaction: LedgerTransaction; idempotencyHit: false } | { hitTxid: bigint } | { error: unknown };

export interface BatchOptions {
  /**
   * Called once the checks are done, right before the statement that bumps the counter is sent: from there on the batch
   * only waits for PostgreSQL (that statement, the rows and the COMMIT). Work the caller defers past the current turn
   * of the event loop (setImmediate) runs while PostgreSQL executes it. Not called when no write was accepted.
   */
  whileWriting?: () => void;
}

/** A write that passed its checks against the batch's running volumes, waiting for its txid. */
interface Accepted {
  index: number;
  postings: Posting[];
  metadata: Record<string, string>;
  accountMetadata: Record<string, Record<string, string>>;
  timestamp: Date;
  reference?: string;
  pre: VolumesByAccount;
  post: VolumesByAccount;
}

export const idempotencyScope = (ledger: string) => `ledger/${ledger}/transactions`;

const pairsOf = (postings: Posting[]) => postings.flatMap((p): Array<[string, string]> => [[p.source, p.asset], [p.destination, p.asset]]);

/**
 * Commits several transaction writes to one ledger in one database transaction (group commit), each with its own
 * outcome. Every hot row is locked once per batch (all plain postings' volume rows in one sorted statement), the writes
 * are then checked one after the other against the batch's running volumes, in the order they will get their txids,
 * so pre- and post-commit volumes are exactly those of that order; a write that fails (funds, reference, script,
 * idempotency conflict) is left out and never touches its neighbours. The accepted ones are written with one counter
 * bump and multi-row inserts. Nothing is acknowledged before the caller's COMMIT returns.
 *
 * Idempotency keys are claimed first, so a duplicate elsewhere waits for this batch as it would for a single write;
 * the claims of writes that failed are deleted before the commit, as a single write's rollback would.
 * The caller must not put two writes with the same key in one batch.
 */
export async function commitBatch(trx: Knex.Transaction, ledger: string, writes: BatchedWrite[], options: BatchOptions = {}): Promise<WriteOutcome[]> {
  const outcomes: Array<WriteOutcome | undefined> = writes.map(() => undefined);
  const scope = idempotencyScope(ledger);
  const claimed = await claimKeys(trx, scope, writes, outcomes);

  const references = writes.flatMap((w, i) => (outcomes[i] || w.request.reference === undefined ? [] : [w.request.reference]));
  const taken = new Map<string, string>();
  if (references.length > 0) {
    const rows = await trx('ledger_transactions').where({ ledger }).whereIn('reference', references).select('reference', 'id');
    for (const row of rows as Array<{ reference: string; id: string }>) taken.set(row.reference, `transaction ${row.id}`);
  }
  const state: VolumeMap = new Map();
  const pairs = writes.flatMap((w, i) => (outcomes[i] ? [] : [...(w.request.postings ? pairsOf(w.request.postings) : []), ...(w.hooks?.lockFirst ?? [])]));
  // A script's pairs join the batch's one sorted lock: locked as each script ran, after the batch already held the plain
  // postings' rows, they broke the order every writer locks in, and the batch deadlocked with an atomic bulk or a
  // revert holding one of them. A script that reads something else under the locks still locks it as it runs.
  const seen = new Map<string, bigint>();
  for (const [i, w] of writes.entries()) {
    if (!outcomes[i] && w.request.script && !w.hooks?.prepare) pairs.push(...(await scriptPairs(trx, ledger, w.request.script, seen)));
  }
  await lockVolumes(trx, ledger, pairs, state, sharedReads(writes.map((w, i) => (outcomes[i] ? undefined : w.hooks))));

  const accepted: Accepted[] = [];
  for (const [index, { request, hooks }] of writes.entries()) {
    if (outcomes[index]) continue;
    try {
      const prepared = hooks?.prepare ? await hooks.prepare(trx, lockedBalance(trx, ledger, state, { lockMissing: false })) : undefined;
      accepted.push(await checkWrite(trx, ledger, index, prepared ?? request, state, taken));
    } catch (error) {
      outcomes[index] = { error };
    }
  }

  const failedKeys = writes.flatMap((w, i) => (claimed.has(i) && outcomes[i] ? [w.idempotencyKey!] : []));
  if (accepted.length === 0) {
    if (failedKeys.length > 0) await trx('idempotency_keys').where({ scope }).whereIn('key', failedKeys).delete();
    return outcomes as WriteOutcome[];
  }
  const statements = sharedStatements(accepted.map((write) => ({ hooks: writes[write.index].hooks, postings: write.postings })));
  options.whileWriting?.();
  const transactions = await insertAccepted(trx, ledger, accepted, state, writes, failedKeys, statements);
  for (const [n, write] of accepted.entries()) await writes[write.index].hooks?.finish?.(trx, transactions[n]);
  accepted.forEach((write, n) => (outcomes[write.index] = { transaction: transactions[n], idempotencyHit: false }));
  return outcomes as WriteOutcome[];
}

/** Claims the batch's keys in one statement; a key already stored answers its write (hit or CONFLICT) right away. */
async function claimKeys(trx: Knex.Transaction, scope: string, writes: BatchedWrite[], outcomes: Array<WriteOutcome | undefined>): Promise<Set<number>> {
  const keyed = writes.flatMap((w, index) => (w.idempotencyKey ? [{ index, key: w.idempotencyKey, hash: hashRequest(w.request) }] : []));
  const claimed = new Set<number>();
  if (keyed.length === 0) return claimed;
  const inserted = await trx.raw(
    `INSERT INTO idempotency_keys (scope, key, request_hash, response)
     SELECT ?, k, h, '' FROM unnest(?::text[], ?::text[]) AS t(k, h) ON CONFLICT DO NOTHING RETURNING key`,
    [scope, keyed.map((k) => k.key), keyed.map((k) => k.hash)],
  );
  const fresh = new Set((inserted.rows as Array<{ key: string }>).map((r) => r.key));
  const stale = keyed.filter((k) => !fresh.has(k.key));
  const stored = new Map<string, { request_hash: string; response: string }>();
  if (stale.length > 0) {
    const rows = await trx('idempotency_keys').where({ scope }).whereIn('key', stale.map((k) => k.key)).select('key', 'request_hash', 'response');
    for (const row of rows) stored.set(row.key, row);
  }
  for (const { index, key, hash } of keyed) {
    if (fresh.has(key)) {
      claimed.add(index);
      continue;
    }
    const row = stored.get(key);
    outcomes[index] =
      row && row.request_hash === hash
        ? { hitTxid: BigInt((parseJson(row.response) as { id: string }).id) }
        : { error: new ApiError('CONFLICT', 'Idempotency-Key was already used with a different request') };
  }
  return claimed;
}

/**
 * Checks one write against the running volumes and, when it passes, applies it to them. Plain postings are
 * funds-checked as a single write checks them; a script runs with the batch's running balances and locks what it
 * reads beyond them. Account metadata a script sets is written now, so a later script of the batch reads it.
 */
async function checkWrite(trx: Knex.Transaction, ledger: string, index: number, request: CreateTransactionInput, state: VolumeMap, taken: Map<string, string>): Promise<Accepted> {
  if (request.reference !== undefined && taken.has(request.reference)) {
    throw new ApiError('CONFLICT', `reference "${request.reference}" is already used by ${taken.get(request.reference)} of ledger "${ledger}"`);
  }
  const { postings, metadata, accountMetadata } = request.script
    ? await scriptedWrite(trx, ledger, request.script, request.metadata ?? {}, state)
    : { postings: request.postings ?? [], metadata: request.metadata ?? {}, accountMetadata: {} };
  if (postings.length === 0) throw new ApiError('NO_POSTINGS', 'the transaction has no postings');
  const { pre, post, changed } = applyPostings(state, postings, !request.script);
  for (const [key, entry] of changed) state.set(key, entry);
  if (request.reference !== undefined) taken.set(request.reference, 'an earlier write of the same batch');
  await mergeAccountMetadata(trx, ledger, accountMetadata);
  return { index, postings, metadata, accountMetadata, timestamp: request.timestamp ?? new Date(), reference: request.reference, pre, post };
}

/**
 * Two statements for the whole batch. The first writes the final volumes of every touched row, creates the accounts,
 * and takes the batch's txids and log ids with one bump of the ledger row: that row is locked last and held only for
 * the second statement (transactions, logs, events, idempotency results, the callers' rows of SharedHooks.write) and the
 * commit, which keeps ids dense.
 */
async function insertAccepted(
  trx: Knex.Transaction,
  ledger: string,
  accepted: Accepted[],
  state: VolumeMap,
  writes: BatchedWrite[],
  failedKeys: string[],
  statements: SqlStatement[],
): Promise<LedgerTransaction[]> {
  const touched = new Set(accepted.flatMap((a) => a.postings.flatMap((p) => [`${p.source}\u0000${p.asset}`, `${p.destination}\u0000${p.asset}`])));
  const rows = [...touched].map((key) => state.get(key)!);
  const accounts = [...new Set(rows.map((r) => r.address))].sort();
  const bumped = await trx.raw(
    `WITH v AS (
       UPDATE ledger_volumes v SET input = d.input, output = d.output
       FROM unnest(?::text[], ?::text[], ?::numeric[], ?::numeric[]) AS d(address, asset, input, output)
       WHERE v.ledger = ? AND v.address = d.address AND v.asset = d.asset RETURNING 1
     ), a AS (
       INSERT INTO ledger_accounts (ledger, address) SELECT ?, a FROM unnest(?::text[]) AS a ON CONFLICT (ledger, address) DO NOTHING
     )
     UPDATE ledgers SET next_txid = next_txid + ?, next_log_id = next_log_id + ? WHERE name = ?
     RETURNING next_txid - ? AS txid, next_log_id - ? AS log_id`,
    [rows.map((r) => r.address), rows.map((r) => r.asset), rows.map((r) => r.input.toString()), rows.map((r) => r.output.toString()), ledger, ledger, accounts, accepted.length, accepted.length, ledger, accepted.length, accepted.length],
  );
  const first = bumped.rows[0] as { txid: string; log_id: string } | undefined;
  if (!first) throw new ApiError('LEDGER_NOT_FOUND', `ledger "${ledger}" not found`);
  const txids = accepted.map((_, n) => BigInt(first.txid) + BigInt(n));
  const logIds = accepted.map((_, n) => BigInt(first.log_id) + BigInt(n));
  const now = new Date();
  const keys = accepted.flatMap((a, n) => (writes[a.index].idempotencyKey ? [{ key: writes[a.index].idempotencyKey!, response: stringifyJson({ id: txids[n].toString() }) }] : []));

  // What the batch returns is built here rather than read back (RETURNING * made PostgreSQL write every jsonb out and
  // the API parse it again): the rows hold exactly these values, and the event carries the same view.
  const transactions = accepted.map(
    (a, n): LedgerTransaction => ({
      id: txids[n],
      ledger,
      postings: a.postings,
      metadata: a.metadata,
      timestamp: a.timestamp,
      insertedAt: now,
      reverted: false,
      ...(a.reference !== undefined ? { reference: a.reference } : {}),
      preCommitVolumes: a.pre,
      postCommitVolumes: a.post,
    }),
  );
  const events = transactions.map((transaction, n): PlatformEvent => ({
    app: 'ledger',
    type: 'COMMITTED_TRANSACTIONS',
    payload: { ledger, transactions: [v2TransactionView(transaction)], accountMetadata: accepted[n].accountMetadata },
  }));
  // The rows go as one JSON document, written by one walk, rather than as a dozen array parameters: pg escapes every
  // element of a text or jsonb array one by one, which cost more API CPU than writing the JSON.
  const rowsJson = stringifyJson(
    accepted.map((a, n) => ({
      id: txids[n],
      ts: a.timestamp,
      ref: a.reference ?? null,
      postings: a.postings.map((p) => ({ source: p.source, destination: p.destination, amount: p.amount, asset: p.asset })),
      metadata: a.metadata,
      pre: a.pre,
      post: a.post,
      src: [...new Set(a.postings.map((p) => p.source))],
      dst: [...new Set(a.postings.map((p) => p.destination))],
      log_id: logIds[n],
      log: { transaction: logTransactionView({ id: txids[n], ...a }), accountMetadata: a.accountMetadata },
    })),
  );
  await trx.raw(
    `WITH x AS MATERIALIZED (
       SELECT * FROM json_to_recordset(?::json)
         AS x(id bigint, ts timestamptz, ref text, postings json, metadata jsonb, pre json, post json, src text[], dst text[], log_id bigint, log jsonb)
     ), t AS (
       INSERT INTO ledger_transactions (ledger, id, timestamp, reference, postings, metadata, pre_commit_volumes, post_commit_volumes, sources, destinations, inserted_at, json_head)
       SELECT ?, x.id, x.ts, x.ref, x.postings, x.metadata, x.pre, x.post, x.src, x.dst, ?, ${headJsonSql('x.ts', 'x.postings')} FROM x
     ), l AS (
       INSERT INTO ledger_logs (ledger, id, type, date, data) SELECT ?, x.log_id, 'NEW_TRANSACTION', ?, x.log FROM x
     ), k AS (
       UPDATE idempotency_keys SET response = x.response FROM unnest(?::text[], ?::text[]) AS x(key, response) WHERE scope = ? AND idempotency_keys.key = x.key
     ), d AS (
       DELETE FROM idempotency_keys WHERE scope = ? AND key = ANY(?::text[])
     ), e AS (${outboxInsert()}), n AS (${NOTIFY_IF_EMITTED})${statements.map((statement, i) => `, s${i} AS (${statement.sql})`).join('')}
     SELECT count(*) AS notified FROM n`,
    [
      rowsJson,
      ledger,
      now,
      ledger,
      now,
      keys.map((k) => k.key),
      keys.map((k) => k.response),
      idempotencyScope(ledger),
      idempotencyScope(ledger),
      failedKeys,
      ...outboxParameters(events),
      OUTBOX_CHANNEL,
      ...statements.flatMap((statement) => statement.bindings),
    ],
  );
  return transactions;
}
