import type { Knex } from 'knex';
import { hashRequest } from '../../../db/idempotency';
import type { PlatformEvent } from '../../../db/outbox';
import { ApiError } from '../../../lib/errors';
import { parseJson, stringifyJson } from '../../../lib/json';
import { logTransactionView } from '../logs/log';
import { scriptedWrite, scriptPairs } from './script';
import type { CreateTransactionInput, LedgerTransaction, Posting, VolumesByAccount } from '../types';
import { applyPostings, lockVolumes, pairKey, type VolumeMap } from '../reads/volumes';
import { insertCommitted, mergeAccountMetadata, releaseKeys, volumeRows, writeVolumesAndTakeIds, type CommittedRow } from './write-statements';
import { v2TransactionView } from '../reads/views';
import { callerStatements, holdReads, planSettle, type CallerRows, type SettleInput, type Settled } from './settle-write';

/**
 * THE LEDGER'S WRITE PIPELINE (docs/ledger.md, "Write path"). Every ledger transaction is committed here: a single
 * write is a batch of one (createTransaction's dry run, checked and inline writes, a revert, a log import's revert, a
 * bulk element), and the group commit (group-commit.ts) hands it the writes of one ledger that arrived together.
 * In the caller's database transaction, in this order:
 *   1. claim the Idempotency-Keys (one INSERT; a stored key answers its write at once: a hit or a CONFLICT);
 *   2. find the references already taken (one SELECT);
 *   3. lock every volume row the writes touch, sorted, in one statement (lockVolumes), a script's pairs included;
 *   4. check each write against the batch's running volumes, in txid order (funds, reference, script, the caller's
 *      check): a refused write is left out with its error and never touches its neighbours;
 *   5. write the volumes and take the txids and log ids with one bump of the ledger row (writeVolumesAndTakeIds);
 *   6. insert transactions, logs, idempotency results, COMMITTED_TRANSACTIONS events and the callers' rows in one
 *      statement (insertCommitted).
 * The caller COMMITs; nothing is acknowledged before. Each write's outcome carries its transaction and its log id.
 */

// The write kinds, each a typed input with its outcome (docs/ledger.md, "Write path"): a transaction (LedgerWrite); a
// wallet hold's settle (LedgerWrite.settle: its hold row locked at step 3, its postings planned at step 4, the row
// closed at step 6); a metadata write (commitMetadataWrite, at the end of this file: one statement, no txid).

/** One write: a normalized request, and what the caller adds to it. */
export interface LedgerWrite {
  request: CreateTransactionInput;
  idempotencyKey?: string;
  /** What the key's hash covers when it is more than the request (the options that change a checked write). */
  hashed?: unknown;
  /** Pairs locked with the batch's one sorted lock besides the postings' own (the accounts a wallet's script moves). */
  lock?: Array<[string, string]>;
  /** The caller's rows committed with the write, in the batch's last statement (a pending debit's hold). */
  rows?: CallerRows;
  /** A wallet hold's settle: its postings are planned under the batch's locks, `request` carries none (SettleInput). */
  settle?: SettleInput;
  /** Plain postings are funds-checked unless forced (Formance's `force`, a forced revert, a log import's revert). */
  force?: boolean;
  /** A revert's log names the transaction it reverts, as its log view; a write without it appends NEW_TRANSACTION. */
  reverts?: unknown;
  /** A log import's replay: the original log's date. */
  logDate?: Date;
  /**
   * Whether the pipeline emits the write's COMMITTED_TRANSACTIONS event (the default). A revert emits its own
   * REVERTED_TRANSACTION event; a checked write emits once it has set its account metadata, with committedEvent.
   */
  emit?: boolean;
  /** Runs on the write's resolved postings before it is accepted (a script checked against a schema's chart). */
  check?: (postings: Posting[]) => void;
}

/** A committed write: its transaction, the account metadata its script set, and the id of the log it appended. */
export interface Committed {
  transaction: LedgerTransaction;
  accountMetadata: Record<string, Record<string, string>>;
  logId: bigint;
  /** A settle's result (SettleInput). */
  settled?: Settled;
}

/** What one write became: committed, answered from its idempotency key, or refused on its own. */
export type WriteOutcome = ({ idempotencyHit: false } & Committed) | { hitTxid: bigint; hitLogId?: bigint } | { error: unknown };

export interface BatchOptions {
  /**
   * Called once the checks are done, right before the statement that bumps the counter is sent: from there on the batch
   * only waits for PostgreSQL (that statement, the rows and the COMMIT). Work the caller defers past the current turn
   * of the event loop (setImmediate) runs while PostgreSQL executes it. Not called when no write was accepted.
   */
  whileWriting?: () => void;
  /**
   * Leaves unwritten every write after the first one refused (a non-atomic bulk that stops at its first failure, as if
   * its elements had run one after the other); each is answered with NOT_RUN, and its claimed key is released.
   */
  stopAtFirstRefusal?: boolean;
}

/** The outcome of a write left unwritten because an earlier write of its batch was refused (BatchOptions.stopAtFirstRefusal). */
export const NOT_RUN = new Error('not run: an earlier write of the batch was refused');

export const idempotencyScope = (ledger: string) => `ledger/${ledger}/transactions`;

/** The one builder of the COMMITTED_TRANSACTIONS event of a transaction. */
export const committedEvent = (
  ledger: string,
  transaction: LedgerTransaction,
  accountMetadata: Record<string, Record<string, string>>,
): PlatformEvent => ({
  app: 'ledger',
  type: 'COMMITTED_TRANSACTIONS',
  payload: { ledger, transactions: [v2TransactionView(transaction)], accountMetadata },
});

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
  settled?: Settled;
}

const pairsOf = (postings: Posting[]) =>
  postings.flatMap((p): Array<[string, string]> => [
    [p.source, p.asset],
    [p.destination, p.asset],
  ]);

/**
 * Commits one write, in the caller's transaction: a batch of one.
 * @throws the write's own error (ApiError CONFLICT, INSUFFICIENT_FUND, NO_POSTINGS, COMPILATION_FAILED, LEDGER_NOT_FOUND, ...)
 */
export async function commitWrite(trx: Knex.Transaction, ledger: string, write: LedgerWrite): Promise<Exclude<WriteOutcome, { error: unknown }>> {
  const [outcome] = await commitWrites(trx, ledger, [write]);
  if ('error' in outcome) throw outcome.error;
  return outcome;
}

/**
 * Commits several writes to one ledger in the caller's transaction, each with its own outcome (the steps are at the
 * top of this file). Every hot row is locked once per batch; the writes are then checked one after the other against
 * the batch's running volumes, in the order they will get their txids, so pre- and post-commit volumes are exactly
 * those of that order. Idempotency keys are claimed first, so a duplicate elsewhere waits for this batch as it would
 * for a single write; the claims of refused writes are deleted before the commit, as a single write's rollback would.
 * The caller must not put two writes with the same key in one batch.
 */
export async function commitWrites(
  trx: Knex.Transaction,
  ledger: string,
  writes: LedgerWrite[],
  options: BatchOptions = {},
): Promise<WriteOutcome[]> {
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
  const pairs = writes.flatMap((w, i) =>
    outcomes[i]
      ? []
      : [
          ...(w.request.postings ? pairsOf(w.request.postings) : []),
          ...(w.lock ?? []),
          ...(w.settle ? [...w.settle.pairs, [w.settle.held.account, w.settle.held.asset] as [string, string]] : []),
        ],
  );
  // A script's pairs join the batch's one sorted lock: locked as each script ran, after the batch already held the plain
  // postings' rows, they broke the order every writer locks in, and the batch deadlocked with an atomic bulk or a
  // revert holding one of them. A script that reads something else under the locks still locks it as it runs.
  const seen = new Map<string, bigint>();
  for (const [i, w] of writes.entries()) {
    if (!outcomes[i] && w.request.script) pairs.push(...(await scriptPairs(trx, ledger, w.request.script, seen)));
  }
  const holds = new Map<string, boolean>();
  const settles = writes.flatMap((w, i) => (outcomes[i] || !w.settle ? [] : [w.settle]));
  await lockVolumes(trx, ledger, pairs, state, holdReads(settles, holds));

  const accepted: Accepted[] = [];
  let stopped = false;
  for (const [index, write] of writes.entries()) {
    if (stopped) {
      outcomes[index] = { error: NOT_RUN };
      continue;
    }
    const early = outcomes[index];
    if (early) {
      stopped = options.stopAtFirstRefusal === true && 'error' in early;
      continue;
    }
    try {
      const settle = write.settle && planSettle(write.settle, holds, state);
      const request = settle ? { postings: settle.postings, metadata: write.settle!.metadata } : write.request;
      accepted.push({
        ...(await checkWrite(trx, ledger, index, { ...write, request }, state, taken)),
        ...(settle ? { settled: settle.settled } : {}),
      });
    } catch (error) {
      outcomes[index] = { error };
      stopped = options.stopAtFirstRefusal === true;
    }
  }

  const released = writes.flatMap((w, i) => (claimed.has(i) && outcomes[i] ? [w.idempotencyKey!] : []));
  if (accepted.length === 0) {
    await releaseKeys(trx, scope, released);
    return outcomes as WriteOutcome[];
  }
  options.whileWriting?.();
  const touched = new Set(accepted.flatMap((a) => a.postings.flatMap((p) => [pairKey(p.source, p.asset), pairKey(p.destination, p.asset)])));
  const first = await writeVolumesAndTakeIds(trx, ledger, volumeRows(state, touched), accepted.length);
  if (!first) throw new ApiError('LEDGER_NOT_FOUND', `ledger "${ledger}" not found`);
  const now = new Date();

  // What the batch returns is built here rather than read back (RETURNING * made PostgreSQL write every jsonb out and
  // the API parse it again): the rows hold exactly these values, and the event carries the same view.
  const committed = accepted.map((a, n): Committed => ({
    transaction: {
      id: first.txid + BigInt(n),
      ledger,
      postings: a.postings,
      metadata: a.metadata,
      timestamp: a.timestamp,
      insertedAt: now,
      reverted: false,
      ...(a.reference !== undefined ? { reference: a.reference } : {}),
      preCommitVolumes: a.pre,
      postCommitVolumes: a.post,
    },
    accountMetadata: a.accountMetadata,
    logId: first.logId + BigInt(n),
    ...(a.settled ? { settled: a.settled } : {}),
  }));
  const rows = accepted.map((a, n): CommittedRow => {
    const { transaction, logId } = committed[n];
    const write = writes[a.index];
    const view = logTransactionView(transaction);
    return {
      id: transaction.id,
      timestamp: a.timestamp,
      reference: a.reference,
      postings: a.postings,
      metadata: a.metadata,
      pre: a.pre,
      post: a.post,
      logId,
      logType: write.reverts === undefined ? 'NEW_TRANSACTION' : 'REVERTED_TRANSACTION',
      logDate: write.logDate ?? now,
      logData:
        write.reverts === undefined
          ? { transaction: view, accountMetadata: a.accountMetadata }
          : { revertedTransaction: write.reverts, transaction: view },
    };
  });
  const answered = accepted.flatMap((a, n) => {
    const key = writes[a.index].idempotencyKey;
    // The answer names the log too, so a replay (a bulk element's logID) needs no lookup of its own.
    return key ? [{ key, response: stringifyJson({ id: committed[n].transaction.id.toString(), logId: committed[n].logId.toString() }) }] : [];
  });
  const events = accepted.flatMap((a, n) =>
    writes[a.index].emit === false ? [] : [committedEvent(ledger, committed[n].transaction, a.accountMetadata)],
  );
  const statements = callerStatements(accepted.map((a) => ({ write: writes[a.index], postings: a.postings, settled: a.settled })));
  await insertCommitted(trx, ledger, now, rows, { scope, answered, released }, events, statements);
  accepted.forEach((a, n) => (outcomes[a.index] = { ...committed[n], idempotencyHit: false }));
  return outcomes as WriteOutcome[];
}

/** Claims the batch's keys in one statement; a key already stored answers its write (hit or CONFLICT) right away. */
async function claimKeys(
  trx: Knex.Transaction,
  scope: string,
  writes: LedgerWrite[],
  outcomes: Array<WriteOutcome | undefined>,
): Promise<Set<number>> {
  const keyed = writes.flatMap((w, index) => (w.idempotencyKey ? [{ index, key: w.idempotencyKey, hash: hashRequest(w.hashed ?? w.request) }] : []));
  const claimed = new Set<number>();
  if (keyed.length === 0) return claimed;
  const inserted = await trx.raw(
    `INSERT INTO idempotency_keys (scope, key, request_hash, response)
     SELECT :scope, k, h, '' FROM unnest(:keys::text[], :hashes::text[]) AS t(k, h) ON CONFLICT DO NOTHING RETURNING key`,
    { scope, keys: keyed.map((k) => k.key), hashes: keyed.map((k) => k.hash) },
  );
  const fresh = new Set((inserted.rows as Array<{ key: string }>).map((r) => r.key));
  const stale = keyed.filter((k) => !fresh.has(k.key));
  const stored = new Map<string, { request_hash: string; response: string }>();
  if (stale.length > 0) {
    const rows = await trx('idempotency_keys')
      .where({ scope })
      .whereIn(
        'key',
        stale.map((k) => k.key),
      )
      .select('key', 'request_hash', 'response');
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
        ? replayed(parseJson(row.response) as { id: string; logId?: string })
        : { error: new ApiError('CONFLICT', 'Idempotency-Key was already used with a different request') };
  }
  return claimed;
}

/** A stored answer: its txid, and its log (absent from answers stored before they named it). */
const replayed = (answer: { id: string; logId?: string }) => ({
  hitTxid: BigInt(answer.id),
  ...(answer.logId !== undefined ? { hitLogId: BigInt(answer.logId) } : {}),
});

/**
 * Checks one write against the running volumes and, when it passes, applies it to them. Plain postings are
 * funds-checked unless forced; a script runs with the batch's running balances and locks what it reads beyond them.
 * Account metadata a script set is written now, so a later script of the batch reads it.
 */
async function checkWrite(
  trx: Knex.Transaction,
  ledger: string,
  index: number,
  write: LedgerWrite,
  state: VolumeMap,
  taken: Map<string, string>,
): Promise<Accepted> {
  const { request } = write;
  if (request.reference !== undefined && taken.has(request.reference)) {
    throw new ApiError('CONFLICT', `reference "${request.reference}" is already used by ${taken.get(request.reference)} of ledger "${ledger}"`);
  }
  const { postings, metadata, accountMetadata } = request.script
    ? await scriptedWrite(trx, ledger, request.script, request.metadata ?? {}, state)
    : { postings: request.postings ?? [], metadata: request.metadata ?? {}, accountMetadata: {} };
  if (postings.length === 0) throw new ApiError('NO_POSTINGS', 'the transaction has no postings');
  write.check?.(postings);
  const { pre, post, changed } = applyPostings(state, postings, !request.script && !write.force);
  for (const [key, entry] of changed) state.set(key, entry);
  if (request.reference !== undefined) taken.set(request.reference, 'an earlier write of the same batch');
  await mergeAccountMetadata(trx, ledger, accountMetadata);
  return { index, postings, metadata, accountMetadata, timestamp: request.timestamp ?? new Date(), reference: request.reference, pre, post };
}
