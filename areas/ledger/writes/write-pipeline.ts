import type { Knex } from 'knex';
import type { PlatformEvent } from '../../../db/outbox';
import { ApiError, notFound } from '../../../lib/errors';
import { stringifyJson } from '../../../lib/json';
import { logTransactionView, type LogType } from '../logs/log';
import { presentTransaction } from '../reads/transactions';
import { scriptPairs } from './script';
import { checkWrite, pairsOf, type AcceptedTransaction } from './transaction-write';
import type { CreateTransactionInput, LedgerTransaction, Posting } from '../types';
import { lockVolumes, pairKey, type VolumeMap } from '../reads/volumes';
import {
  insertCommitted,
  lockTransactions,
  releaseKeys,
  volumeRows,
  writeVolumesAndTakeIds,
  type LogInsert,
  type TransactionInsert,
} from './write-statements';
import { v2TransactionView } from '../reads/views';
import { callerStatements, holdReads, planSettle, type CallerRows, type SettleInput, type Settled } from './settle-write';
import { isMetadata, planMetadata, type MetadataState, type MetadataWrite, type Planned } from './metadata-write';
import { claimKeys } from './key-claims';
import { assertAtomicUnitsDecidable, RoundUnits, type WriteUnit } from './write-units';
import { planRevert, revertedEvent, type LockedTransaction, type RevertInput } from './revert-write';

/**
 * THE LEDGER'S WRITE PIPELINE (docs/ledger.md, "Write path"). Every ledger write is committed here: a single write is
 * a batch of one (createTransaction's dry run and writes, a revert, a metadata write, a log import's), the group commit
 * (group-commit.ts) hands it the writes of one ledger that arrived together, and a bulk (bulk.ts) or a v1 batch the
 * elements its client sent. In the caller's database transaction, in this order:
 *   1. claim the Idempotency-Keys (one INSERT; a stored key answers its write at once: a hit or a CONFLICT);
 *   2. find the references already taken (one SELECT);
 *   3. lock the transactions the writes revert or annotate, by id (one SELECT ... FOR UPDATE);
 *   4. lock every volume row the writes touch, sorted, in one statement (lockVolumes), scripts' and reverts' pairs included;
 *   5. check each write against the batch's running volumes, in order (funds, reference, script, revert, the caller's
 *      check): a refused write is left out with its error and never touches its neighbours;
 *   6. lock the accounts whose metadata the writes change, sorted (one SELECT ... FOR UPDATE), and walk the metadata
 *      writes in order against them (MetadataState);
 *   7. write the volumes and take the txids and log ids with one bump of the ledger row (writeVolumesAndTakeIds);
 *   8. insert transactions and logs, update the annotated and reverted transactions and the accounts' metadata, store
 *      the idempotency results, emit the events and the callers' rows in one statement (insertCommitted).
 * The caller COMMITs; nothing is acknowledged before. Each write's outcome carries its transaction and its log id.
 *
 * A batch may run as several rounds of these steps in the same database transaction (commitRound): a write that needs
 * what an earlier write of its round commits (a revert or metadata of a transaction the round may create, a script
 * reading account metadata the round sets) starts the next round, which sees it committed.
 */

// The write kinds, each a typed input with its outcome (docs/ledger.md, "Write path"): a transaction (LedgerWrite), a
// revert (LedgerWrite.revert: its original locked at step 3, marked at step 8), a wallet hold's settle
// (LedgerWrite.settle: its hold row locked at step 4, its postings planned at step 5, the row closed at step 8), and a
// metadata write (MetadataWrite: no txid, no volume; its target locked at step 3 or 6, walked at step 6). A single
// metadata write (the routes') is a batch of one as a transaction is, and joins the group commit the same way.

/** One transaction write: a normalized request, and what the caller adds to it. */
export interface LedgerWrite {
  request: CreateTransactionInput;
  idempotencyKey?: string;
  /** What the key's hash covers when it is more than the request (`force`, a schema version, account metadata: pipelineWrite). */
  hashed?: unknown;
  /** Pairs locked with the batch's one sorted lock besides the postings' own (the accounts a wallet's script moves). */
  lock?: Array<[string, string]>;
  /** The caller's rows committed with the write, in the batch's last statement (a pending debit's hold). */
  rows?: CallerRows;
  /** A wallet hold's settle: its postings are planned under the batch's locks, `request` carries none (SettleInput). */
  settle?: SettleInput;
  /** A revert: its postings are its original's reversed, under the batch's lock (RevertInput); `request` carries its metadata. */
  revert?: RevertInput;
  /** Plain postings are funds-checked unless forced (Formance's `force`, a forced revert, a log import's revert). */
  force?: boolean;
  /** A log import's replay: the original log's date. */
  logDate?: Date;
  /**
   * Whether the pipeline emits the write's event (the default): COMMITTED_TRANSACTIONS, or REVERTED_TRANSACTION for a
   * revert. A dry run and a log import do not.
   */
  emit?: boolean;
  /** Runs on the write's resolved postings before it is accepted (a script checked against a schema's chart). */
  check?: (postings: Posting[]) => void;
  /**
   * Account metadata set with the transaction (Formance's `accountMetadata`), each account with a SET_METADATA log
   * after the transaction's, and in its event's `accountMetadata`.
   */
  accountMetadata?: Record<string, Record<string, string>>;
  /** Default metadata of the accounts the transaction touches (a schema's chart), set for the keys they lack as accountMetadata is. */
  defaults?: (addresses: string[]) => Record<string, Record<string, string>>;
}

/** A write of a batch: a transaction (a revert, a settle) or a metadata write. */
export type BatchWrite = LedgerWrite | MetadataWrite;

/** A committed write: its transaction, the account metadata its script set, and the id of the log it appended. */
export interface Committed {
  transaction: LedgerTransaction;
  accountMetadata: Record<string, Record<string, string>>;
  logId: bigint;
  /** A settle's result (SettleInput). */
  settled?: Settled;
  /** A revert's original, as the revert marked it. */
  reverted?: LedgerTransaction;
}

/** What one transaction write became: committed, answered from its idempotency key, or refused on its own. */
export type WriteOutcome = ({ idempotencyHit: false } & Committed) | { hitTxid: bigint; hitLogId?: bigint } | { error: unknown };

/** What a metadata write became: its log id, none when it changed nothing. */
export type MetadataOutcome = { metadata: true; logId?: bigint };

export type BatchOutcome = WriteOutcome | MetadataOutcome;

export interface BatchOptions {
  /**
   * Called once the checks are done, right before the statement that bumps the counter is sent: from there on the batch
   * only waits for PostgreSQL (that statement, the rows and the COMMIT). Work the caller defers past the current turn
   * of the event loop (setImmediate) runs while PostgreSQL executes it. Not called when no write was accepted.
   */
  whileWriting?: () => void;
  /**
   * The unit each write belongs to, by index (none: the write stands alone). A unit is consecutive writes of one
   * request that the group commit batches with other requests' writes (a bulk's batch): its rules apply to its own
   * writes only.
   */
  units?: ReadonlyArray<WriteUnit | undefined>;
}

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

/**
 * Commits one transaction write, in the caller's transaction: a batch of one.
 * @throws the write's own error (ApiError CONFLICT, INSUFFICIENT_FUND, NO_POSTINGS, COMPILATION_FAILED, NOT_FOUND, ALREADY_REVERT, LEDGER_NOT_FOUND, ...)
 */
export async function commitWrite(trx: Knex.Transaction, ledger: string, write: LedgerWrite): Promise<Exclude<WriteOutcome, { error: unknown }>> {
  const [outcome] = await commitWrites(trx, ledger, [write]);
  if ('error' in outcome) throw outcome.error;
  return outcome;
}

/**
 * Commits several writes to one ledger in the caller's transaction, each with its own outcome (the steps are at the
 * top of this file). Every hot row is locked once per round; the writes are then checked one after the other against
 * the batch's running volumes, in the order they will get their ids, so pre- and post-commit volumes are exactly
 * those of that order, and txids and log ids are dense in it. Idempotency keys are claimed first, so a duplicate
 * elsewhere waits for this batch as it would for a single write; the claims of refused writes are deleted before the
 * commit, as a single write's rollback would. The caller must not put two writes with the same key in one batch.
 */
export async function commitWrites(trx: Knex.Transaction, ledger: string, writes: LedgerWrite[], options?: BatchOptions): Promise<WriteOutcome[]>;
export async function commitWrites(trx: Knex.Transaction, ledger: string, writes: BatchWrite[], options?: BatchOptions): Promise<BatchOutcome[]>;
export async function commitWrites(trx: Knex.Transaction, ledger: string, writes: BatchWrite[], options: BatchOptions = {}): Promise<BatchOutcome[]> {
  assertAtomicUnitsDecidable(writes, options.units);
  const outcomes: Array<BatchOutcome | undefined> = writes.map(() => undefined);
  const claimed = await claimKeys(trx, idempotencyScope(ledger), writes, outcomes);
  for (let from = 0; from < writes.length;) from = await commitRound(trx, ledger, writes, from, outcomes, claimed, options);
  return outcomes as BatchOutcome[];
}

/**
 * One round of a batch: the writes from `from` on, up to the first that must see this round committed (a deferred
 * write: a revert or metadata of a transaction not found while the round creates some, which may be it; a script after
 * a write of account metadata, which it may read). The round runs the steps at the top of this file and returns where
 * the next round starts. The first write of a round is never deferred: its target is missing or its reads are final.
 */
async function commitRound(
  trx: Knex.Transaction,
  ledger: string,
  writes: BatchWrite[],
  from: number,
  outcomes: Array<BatchOutcome | undefined>,
  claimed: Set<number>,
  options: BatchOptions,
): Promise<number> {
  const scope = idempotencyScope(ledger);
  const open = writes.flatMap((write, index) => (index >= from && !outcomes[index] ? [{ index, write }] : []));
  const transactionWrites = open.flatMap(({ index, write }) => (isMetadata(write) ? [] : [{ index, write }]));

  const references = transactionWrites.flatMap(({ write }) => (write.request.reference === undefined ? [] : [write.request.reference]));
  const taken = new Map<string, string>();
  if (references.length > 0) {
    const rows = await trx('ledger_transactions').where({ ledger }).whereIn('reference', references).select('reference', 'id');
    for (const row of rows as Array<{ reference: string; id: string }>) taken.set(row.reference, `transaction ${row.id}`);
  }

  const targetIds = open.flatMap(({ write }) =>
    isMetadata(write) ? (write.target.type === 'TRANSACTION' ? [write.target.id] : []) : write.revert ? [write.revert.id] : [],
  );
  const locked = new Map<string, LockedTransaction>();
  for (const row of await lockTransactions(trx, ledger, targetIds)) {
    const transaction = presentTransaction(row);
    locked.set(row.id.toString(), { transaction, reverted: transaction.reverted });
  }

  const state: VolumeMap = new Map();
  const pairs = transactionWrites.flatMap(({ write: w }) => [
    ...(w.request.postings ? pairsOf(w.request.postings) : []),
    ...(w.lock ?? []),
    ...(w.settle ? [...w.settle.pairs, [w.settle.held.account, w.settle.held.asset] as [string, string]] : []),
    // A revert moves its original's accounts and assets back: the same pairs.
    ...(w.revert && locked.has(w.revert.id.toString()) ? pairsOf(locked.get(w.revert.id.toString())!.transaction.postings) : []),
  ]);
  // A script's pairs join the batch's one sorted lock: locked as each script ran, after the batch already held the plain
  // postings' rows, they broke the order every writer locks in, and the batch deadlocked with an atomic bulk or a
  // revert holding one of them. A script that reads something else under the locks still locks it as it runs.
  const seen = new Map<string, bigint>();
  for (const { write } of transactionWrites) if (write.request.script) pairs.push(...(await scriptPairs(trx, ledger, write.request.script, seen)));
  const holds = new Map<string, boolean>();
  const settles = transactionWrites.flatMap(({ write }) => (write.settle ? [write.settle] : []));
  await lockVolumes(trx, ledger, pairs, state, holdReads(settles, holds));

  const accepted: Array<{ index: number; transaction?: AcceptedTransaction }> = [];
  let next = writes.length;
  const units = new RoundUnits(options.units ?? [], outcomes, from);
  let createsTransactions = false;
  let setsAccountMetadata = false;
  for (let index = from; index < writes.length; index++) {
    const write = writes[index];
    if (units.leftUnrun(index)) continue;
    if (outcomes[index]) {
      units.early(index);
      continue;
    }
    const target = isMetadata(write) ? (write.target.type === 'TRANSACTION' ? write.target.id : undefined) : write.revert?.id;
    const missing = target !== undefined && !locked.has(target.toString());
    if ((missing && createsTransactions) || (!isMetadata(write) && write.request.script && setsAccountMetadata)) {
      next = index;
      break;
    }
    try {
      if (isMetadata(write)) {
        if (missing) throw notFound(`transaction ${String(target)} not found in ledger "${ledger}"`);
        accepted.push({ index });
        setsAccountMetadata ||= write.target.type === 'ACCOUNT';
        continue;
      }
      let request = write.request;
      let settled: Settled | undefined;
      if (write.settle) {
        const settle = planSettle(write.settle, holds, state);
        request = { postings: settle.postings, metadata: write.settle.metadata };
        settled = settle.settled;
      } else if (write.revert) {
        request = { ...request, ...planRevert(ledger, write.revert, locked.get(write.revert.id.toString())) };
      }
      const transaction = await checkWrite(trx, ledger, index, { ...write, request }, state, taken);
      if (write.revert) locked.get(write.revert.id.toString())!.reverted = true;
      accepted.push({ index, transaction: { ...transaction, ...(settled ? { settled } : {}) } });
      createsTransactions = true;
      setsAccountMetadata ||= write.defaults !== undefined || Object.keys(write.accountMetadata ?? {}).length > 0;
    } catch (error) {
      units.refused(index, error);
    }
  }

  // An atomic unit refused: the round is checked again without it, from volumes read afresh (nothing is written yet).
  if (units.abortedFirst(accepted)) return from;

  const released = writes.flatMap((w, i) =>
    i >= from && i < next && claimed.has(i) && outcomes[i] && 'error' in outcomes[i]! ? [(w as LedgerWrite).idempotencyKey!] : [],
  );
  if (accepted.length === 0) {
    await releaseKeys(trx, scope, released);
    return next;
  }
  const planned = await planMetadata(trx, ledger, writes, accepted, locked);
  options.whileWriting?.();
  await commitAccepted(trx, ledger, writes, planned, state, { scope, released }, outcomes);
  return next;
}

/** Steps 7 and 8: takes the ids of the accepted writes, in order, and commits them with their logs, events and keys. */
async function commitAccepted(
  trx: Knex.Transaction,
  ledger: string,
  writes: BatchWrite[],
  { plans, metadata }: { plans: Planned[]; metadata: MetadataState },
  state: VolumeMap,
  keys: { scope: string; released: string[] },
  outcomes: Array<BatchOutcome | undefined>,
): Promise<void> {
  const created = plans.flatMap((p) => (p.kind === 'transaction' ? [p.accepted] : []));
  const logCount = plans.reduce((n, p) => n + (p.kind === 'transaction' ? 1 + Object.keys(p.toSet).length : p.change ? 1 : 0), 0);
  if (logCount === 0) {
    // Only metadata writes that changed nothing (deleted keys that were not there): no log, no event, no row written,
    // so the ledger row is left unlocked.
    for (const plan of plans) if (plan.kind === 'metadata') outcomes[plan.index] = { metadata: true };
    await releaseKeys(trx, keys.scope, keys.released);
    return;
  }
  const touched = new Set(created.flatMap((a) => a.postings.flatMap((p) => [pairKey(p.source, p.asset), pairKey(p.destination, p.asset)])));
  const first = await writeVolumesAndTakeIds(trx, ledger, volumeRows(state, touched), { transactions: created.length, logs: logCount });
  if (!first) throw new ApiError('LEDGER_NOT_FOUND', `ledger "${ledger}" not found`);
  const now = new Date();
  let txid = first.txid;
  let logId = first.logId;
  const transactions: TransactionInsert[] = [];
  const logs: LogInsert[] = [];
  const events: PlatformEvent[] = [];
  const answered: Array<{ key: string; response: string }> = [];
  const log = (type: LogType, date: Date, data: unknown) => {
    logs.push({ id: logId, type, date, data });
    return logId++;
  };
  // What the batch returns is built here rather than read back (RETURNING * made PostgreSQL write every jsonb out and
  // the API parse it again): the rows hold exactly these values, and the events carry the same views.
  for (const plan of plans) {
    if (plan.kind === 'metadata') {
      const { change } = plan;
      outcomes[plan.index] = { metadata: true, ...(change ? { logId: log(change.log.type, change.log.date, change.log.data) } : {}) };
      if (change?.event) events.push(change.event);
      continue;
    }
    const { accepted: a, toSet, reverted } = plan;
    const write = writes[a.index] as LedgerWrite;
    const transaction: LedgerTransaction = {
      id: txid++,
      ledger,
      postings: a.postings,
      metadata: a.metadata,
      timestamp: a.timestamp,
      insertedAt: now,
      reverted: false,
      ...(a.reference !== undefined ? { reference: a.reference } : {}),
      preCommitVolumes: a.pre,
      postCommitVolumes: a.post,
    };
    transactions.push({
      id: transaction.id,
      timestamp: a.timestamp,
      reference: a.reference,
      postings: a.postings,
      metadata: a.metadata,
      pre: a.pre,
      post: a.post,
    });
    const view = logTransactionView(transaction);
    const logDate = write.logDate ?? now;
    const ownLog = reverted
      ? log('REVERTED_TRANSACTION', logDate, { revertedTransaction: logTransactionView(reverted), transaction: view })
      : log('NEW_TRANSACTION', logDate, { transaction: view, accountMetadata: a.accountMetadata });
    // Account metadata set with the transaction: each account's SET_METADATA log after the transaction's, so an import replays it.
    const accountMetadata = { ...a.accountMetadata };
    for (const address of Object.keys(toSet).sort()) {
      log('SET_METADATA', logDate, { targetType: 'ACCOUNT', targetId: address, metadata: toSet[address] });
      accountMetadata[address] = { ...accountMetadata[address], ...toSet[address] };
    }
    if (write.emit !== false) {
      events.push(reverted ? revertedEvent(ledger, reverted, transaction) : committedEvent(ledger, transaction, accountMetadata));
    }
    // The answer names the log too, so a replay (a bulk element's logID) needs no lookup of its own.
    if (write.idempotencyKey)
      answered.push({ key: write.idempotencyKey, response: stringifyJson({ id: transaction.id.toString(), logId: ownLog.toString() }) });
    outcomes[a.index] = {
      idempotencyHit: false,
      transaction,
      accountMetadata: a.accountMetadata,
      logId: ownLog,
      ...(a.settled ? { settled: a.settled } : {}),
      ...(reverted ? { reverted } : {}),
    };
  }
  const statements = callerStatements(created.map((a) => ({ write: writes[a.index] as LedgerWrite, postings: a.postings, settled: a.settled })));
  await insertCommitted(
    trx,
    ledger,
    now,
    { transactions, logs, ...metadata.updates() },
    { scope: keys.scope, answered, released: keys.released },
    events,
    statements,
  );
}
