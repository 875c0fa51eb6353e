import type { Knex } from 'knex';
import { ApiError, validationError } from '../../../lib/errors';
import { canonicalJson } from '../../../lib/json';
import { insertCommitted, mergeAccountMetadata, volumeRows, writeVolumesAndTakeIds, type CommittedBatch } from '../writes/write-statements';
import { logTransactionView, type LogType } from './log';
import { importedRevertWrite } from '../writes/revert-transaction';
import { checkSchemaData, writeSchema } from '../rules/schemas';
import type { Posting, VolumesByAccount } from '../types';
import { applyPostings, lockVolumes, type VolumeMap } from '../reads/volumes';
import { isMetadata, type MetadataWrite } from '../writes/metadata-write';
import { commitWrites, type BatchOutcome, type BatchWrite } from '../writes/write-pipeline';
import { asOneUnit } from '../writes/write-units';
import {
  assertSameData,
  assertSameTxid,
  date,
  metadataOf,
  readLoggedTransaction,
  readMetadataChange,
  record,
  targetOf,
  txid,
  type Data,
} from './log-data';

export interface ReplayedLog {
  id: bigint;
  type: LogType;
  date: Date;
  data: Data;
}

/** A NEW_TRANSACTION log checked and computed, waiting in a chunk for its rows. */
export interface PendingTransaction {
  log: ReplayedLog;
  txid: bigint;
  postings: Posting[];
  metadata: Record<string, string>;
  timestamp: Date;
  reference?: string;
  accountMetadata: Record<string, Record<string, string>>;
  view: Data;
}

/**
 * NEW_TRANSACTION logs written per statement: a chunk is one volume lock and one insert, whatever its size. Also the
 * most revert and metadata logs one batch of the pipeline takes.
 */
const CHUNK = 1000;

/** A revert or metadata log waiting in its run for the run's batch of the pipeline. */
interface QueuedWrite {
  log: ReplayedLog;
  write: BatchWrite;
  /** Checks the write's outcome against what the log says (a revert's txid and postings, a deleted key that was set). */
  check(outcome: Exclude<BatchOutcome, { error: unknown }>): void;
}

/**
 * Replays an import's logs, in id order, inside the import's database transaction, into a ledger that was empty when it
 * began. Every log goes through the ledger's own rules and must describe exactly what they produce:
 * - NEW_TRANSACTION: postings checked as a write checks them (integer amounts, addresses, assets), references unique,
 *   the txid the next one; volumes are recomputed from the postings (a log carries none). Funds are not checked (the
 *   source did, and a script may have allowed an overdraft that plain postings would not). Runs of them are written a
 *   chunk at a time: the volumes of the chunk locked once, then one statement for the rows (transactions, logs,
 *   volumes, accounts, counters), which is what makes a large import a matter of seconds rather than of round trips.
 * - REVERTED_TRANSACTION, SET_METADATA, DELETE_METADATA: through the write pipeline, a run of consecutive ones as one
 *   batch (importedRevertWrite, MetadataWrite, with the logs' dates and no event): the original must exist and not be
 *   reverted, the revert's postings and `revertedTransaction` must be the original's, mirrored, as stored; a
 *   transaction must exist, a deleted key must be set. A revert or metadata of a transaction the run itself creates (a
 *   revert's) is in the batch's next round, which sees it committed (write-pipeline.ts).
 * - INSERTED_SCHEMA: through writeSchema (a schema must pass its checks).
 * A transaction's log is checked against the data computed for it by the import (which hashes that data onto the
 * chain); every other log is read back once written and compared with the log given (assertSameData).
 * @throws ApiError VALIDATION, NOT_FOUND, ALREADY_REVERT, CONFLICT (reference), SCHEMA_ALREADY_EXISTS; the caller names the log
 */
export class LogReplayer {
  /** The log to name in an error thrown while earlier logs are written (a chunk's first, a run's refused one). */
  failedLog?: bigint;
  private pending: PendingTransaction[] = [];
  /** The run of revert and metadata logs not yet written; never queued at the same time as `pending`. */
  private writes: QueuedWrite[] = [];
  /**
   * Volumes as the replay left them: the ledger was empty and only the import writes to it, so after a chunk's pairs
   * are locked once (lockVolumes skips the pairs already held), later chunks compute on them without a read. A revert
   * moves volumes in the database: it empties this map, which the next chunk fills again from there.
   */
  private readonly volumes: VolumeMap = new Map();
  /** The last chunk's statement, left running while the next chunk is computed; awaited before the next is sent. */
  private inflight?: Promise<void>;
  private inflightFailure?: { error: unknown; firstLog: bigint };
  private nextTxid = 0n;
  private readonly references = new Set<string>();

  constructor(
    private readonly trx: Knex.Transaction,
    private readonly ledger: string,
  ) {}

  /**
   * Checks a NEW_TRANSACTION log against the rules and computes the data its replay writes (`view`). The caller must
   * make sure the log's data is that view (the import hashes the view onto the chain: the log's hash then verifies only
   * if it is, which spares comparing them), then hand it to `push`.
   */
  prepareTransaction(log: ReplayedLog): PendingTransaction {
    return this.newTransaction(log);
  }

  /** Queues a prepared transaction; its rows are written with its chunk. */
  async push(pending: PendingTransaction): Promise<void> {
    await this.flushWrites();
    this.pending.push(pending);
    if (this.pending.length >= CHUNK) await this.flush();
  }

  /**
   * Replays a log of any other type: a revert or a metadata log joins the run of them written as one batch of the
   * pipeline; a schema is written at once. Each log's data is read back once written and compared.
   */
  async apply(log: ReplayedLog): Promise<void> {
    await this.flush();
    if (log.type !== 'REVERTED_TRANSACTION' && log.type !== 'SET_METADATA' && log.type !== 'DELETE_METADATA') {
      await this.flushWrites();
      await this.settle();
      await replayLog(this.trx, this.ledger, log);
      await this.readBack([log]);
      return;
    }
    let queued: QueuedWrite;
    try {
      queued = log.type === 'REVERTED_TRANSACTION' ? this.revert(log) : metadataWrite(log);
    } catch (error) {
      // A log queued before this one that fails is the first offender.
      await this.flushWrites();
      throw error;
    }
    this.writes.push(queued);
    if (this.writes.length >= CHUNK) await this.flushWrites();
  }

  /** Writes what is still pending. */
  async finish(): Promise<void> {
    await this.flushWrites();
    await this.flush();
    await this.settle();
  }

  /** Waits for the chunk statement in flight; its failure is thrown here, naming the chunk's first log. */
  private async settle(): Promise<void> {
    if (this.inflight) await this.inflight;
    this.inflight = undefined;
    if (this.inflightFailure) {
      this.failedLog = this.inflightFailure.firstLog;
      throw this.inflightFailure.error;
    }
  }

  private newTransaction(log: ReplayedLog): PendingTransaction {
    const { id, reference, ...read } = readLoggedTransaction(log);
    if (reference !== undefined) {
      if (this.references.has(reference))
        throw new ApiError('CONFLICT', `reference "${reference}" is already used by an earlier transaction of the import`);
      this.references.add(reference);
    }
    const pending = { log, txid: this.nextTxid, ...read, ...(reference !== undefined ? { reference } : {}) };
    assertSameTxid(id, pending.txid);
    const view = { transaction: logTransactionView({ id: pending.txid, ...pending }), accountMetadata: pending.accountMetadata };
    this.nextTxid += 1n;
    return { ...pending, view };
  }

  /** A revert log as a write of the run; its txid is the next one, so the logs after it are prepared before the run is written. */
  private revert(log: ReplayedLog): QueuedWrite {
    const { data } = log;
    const tx = record(data.transaction, 'transaction');
    const original = txid(record(data.revertedTransaction, 'revertedTransaction').id, 'revertedTransaction.id');
    const write = importedRevertWrite(original, {
      metadata: metadataOf(tx.metadata, 'transaction.metadata'),
      timestamp: date(tx.timestamp, 'transaction.timestamp'),
      logDate: log.date,
    });
    const expected = this.nextTxid;
    this.nextTxid += 1n;
    return {
      log,
      write,
      check: (outcome) => {
        if (!('transaction' in outcome)) throw new Error('a revert takes no Idempotency-Key');
        const created = outcome.transaction;
        assertSameTxid(tx.id, created.id);
        if (created.id !== expected) throw new Error(`import of ledger "${this.ledger}": revert got txid ${created.id}, expected ${expected}`);
        const mirrored = created.postings.map((p) => ({ source: p.source, destination: p.destination, amount: p.amount, asset: p.asset }));
        if (canonicalJson(tx.postings) !== canonicalJson(mirrored)) {
          throw validationError(
            `transaction.postings: a revert must mirror transaction ${original} exactly (its postings reversed: ${canonicalJson(mirrored)})`,
          );
        }
      },
    };
  }

  /**
   * Writes the run of revert and metadata logs as one batch of the pipeline, in order (the chunk before it written
   * first), then checks each write's outcome and reads their logs back, naming the first log that fails.
   */
  private async flushWrites(): Promise<void> {
    const run = this.writes;
    if (run.length === 0) return;
    this.writes = [];
    await this.settle();
    // A failure of the batch as a whole (a database error) is named after its first log.
    this.failedLog = run[0].log.id;
    // The first refused log fails the import: nothing after it need be written.
    const writes = run.map((q) => q.write);
    const outcomes = await commitWrites(this.trx, this.ledger, writes, { units: asOneUnit(writes, { stopAtFirstRefusal: true }) });
    // A revert moved volumes in the database: the next chunk reads them again.
    if (run.some((q) => !isMetadata(q.write))) this.volumes.clear();
    for (const [i, queued] of run.entries()) {
      this.failedLog = queued.log.id;
      const outcome = outcomes[i];
      if ('error' in outcome) throw outcome.error;
      queued.check(outcome);
    }
    await this.readBack(run.map((q) => q.log));
  }

  /** Reads written logs back (one query) and compares each with the log given. */
  private async readBack(logs: ReplayedLog[]): Promise<void> {
    const rows: Array<{ id: string; type: LogType; data: unknown }> = await this.trx('ledger_logs')
      .where({ ledger: this.ledger })
      .whereIn(
        'id',
        logs.map((l) => l.id.toString()),
      )
      .select('id', 'type', 'data');
    const byId = new Map(rows.map((row) => [String(row.id), row]));
    for (const log of logs) {
      this.failedLog = log.id;
      const row = byId.get(log.id.toString());
      if (!row || row.type !== log.type) throw validationError(`the replay wrote no ${log.type} log with id ${log.id}`);
      assertSameData(log.data, row.data);
    }
    this.failedLog = undefined;
  }

  private async flush(): Promise<void> {
    const chunk = this.pending;
    if (chunk.length === 0) return;
    this.pending = [];
    this.failedLog = chunk[0].log.id;
    const state = this.volumes;
    // Statements queue behind the chunk in flight: when it failed, theirs fail only with "transaction aborted".
    const queued = async (work: () => Promise<unknown>) => {
      try {
        await work();
      } catch (error) {
        await this.settle();
        throw error;
      }
    };
    await queued(() =>
      lockVolumes(
        this.trx,
        this.ledger,
        chunk.flatMap((t) =>
          t.postings.flatMap((p): Array<[string, string]> => [
            [p.source, p.asset],
            [p.destination, p.asset],
          ]),
        ),
        state,
      ),
    );
    const volumes: Array<{ pre: VolumesByAccount; post: VolumesByAccount }> = [];
    const accountMetadata: Record<string, Record<string, string>> = {};
    const touched = new Set<string>();
    for (const t of chunk) {
      const { pre, post, changed } = applyPostings(state, t.postings, false);
      for (const [key, entry] of changed) {
        state.set(key, entry);
        touched.add(key);
      }
      volumes.push({ pre, post });
      for (const [address, metadata] of Object.entries(t.accountMetadata)) accountMetadata[address] = { ...accountMetadata[address], ...metadata };
    }
    await queued(() => mergeAccountMetadata(this.trx, this.ledger, accountMetadata));
    const rows: CommittedBatch = {
      transactions: chunk.map((t, n) => ({
        id: t.txid,
        timestamp: t.timestamp,
        reference: t.reference,
        postings: t.postings,
        metadata: t.metadata,
        pre: volumes[n].pre,
        post: volumes[n].post,
      })),
      logs: chunk.map((t) => ({ id: t.log.id, type: 'NEW_TRANSACTION', date: t.log.date, data: t.view })),
      transactionUpdates: [],
      accountUpdates: [],
    };
    // The statements run while the import computes the next chunk (PostgreSQL and the API work at the same time); the
    // connection runs a transaction's statements in the order sent, so what comes next sees its rows.
    await this.settle();
    const firstLog = chunk[0].log.id;
    this.failedLog = undefined;
    // The write pipeline's own statements (write-statements.ts), with the logs' ids and dates: no key, event or hook.
    const statement = (async () => {
      const ids = await writeVolumesAndTakeIds(this.trx, this.ledger, volumeRows(state, touched), { transactions: chunk.length, logs: chunk.length });
      // The ledger was empty and is locked by this transaction: the counters can only be where the replay left them.
      if (!ids || ids.txid !== chunk[0].txid || ids.logId !== firstLog) {
        throw new Error(
          `import of ledger "${this.ledger}": counters at txid ${ids?.txid}, log ${ids?.logId}, expected ${chunk[0].txid}, ${firstLog}`,
        );
      }
      await insertCommitted(this.trx, this.ledger, new Date(), rows, { scope: '', answered: [], released: [] }, [], []);
    })();
    this.inflight = statement.then(undefined, (error: unknown) => {
      this.inflightFailure = { error, firstLog };
    });
  }
}

/**
 * A SET_METADATA or DELETE_METADATA log as a write of its run, with the log's own date and no event. A delete of a key
 * that is not set is refused, as the source wrote no log for one. @throws ApiError VALIDATION
 */
function metadataWrite(log: ReplayedLog): QueuedWrite {
  const change = readMetadataChange(log);
  if (log.type === 'SET_METADATA') {
    if (!('set' in change)) throw validationError('metadata: must be an object');
    return { log, write: { target: targetOf(change), change: { set: change.set }, logDate: log.date, emit: false }, check: () => undefined };
  }
  if (!('remove' in change)) throw validationError('key: must be a string');
  const write: MetadataWrite = { target: targetOf(change), change: { delete: change.remove }, logDate: log.date, emit: false };
  return {
    log,
    write,
    check: (outcome) => {
      if (!('metadata' in outcome) || outcome.logId === undefined)
        throw new ApiError('VALIDATION', `key "${change.remove}" is not set on ${String(change.targetId)}`);
    },
  };
}

/**
 * Applies an INSERTED_SCHEMA log, inside the import's transaction, with the log's own date.
 * @throws ApiError VALIDATION, SCHEMA_ALREADY_EXISTS
 */
async function replayLog(trx: Knex.Transaction, ledger: string, log: { type: LogType; date: Date; data: Data }): Promise<void> {
  if (log.type !== 'INSERTED_SCHEMA') throw validationError(`type ${log.type} is not replayed here`);
  // The schema's own checks run again: an export edited by hand must not bring in a chart the API would refuse.
  const { version, createdAt: _createdAt, ...rest } = record(log.data.schema, 'schema');
  if (typeof version !== 'string') throw validationError('schema.version: must be a string');
  await writeSchema(trx, ledger, version, checkSchemaData(version, rest), log.date);
}
