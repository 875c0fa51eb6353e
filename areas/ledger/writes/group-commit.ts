import type { Knex } from 'knex';
import { inTransaction } from '../../../db/errors';
import { metrics, secondsSince } from '../../../lib/metrics';
import { activeSpanContext, tracingEnabled, withSpan, type SpanContext, type SpanOptions } from '../../../lib/tracing';
import { isMetadata, type MetadataWrite } from './metadata-write';
import { commitWrites, type BatchOutcome, type BatchWrite, type LedgerWrite, type MetadataOutcome, type WriteOutcome } from './write-pipeline';
import { getConfig } from '../../../lib/config';
import { isScript, type WriteUnit } from './write-units';

/** A request's writes waiting for a batch: one write, or a bulk's batch (a unit, kept together and in order). */
interface Pending {
  writes: BatchWrite[];
  unit?: WriteUnit;
  /** The writer's span when tracing is on: the batch's span links it (or is its child for a batch of one). */
  span?: SpanContext;
  resolve(outcomes: BatchOutcome[]): void;
  /** The writes failed whole on their own, before their COMMIT: nothing of them was written. */
  failed(error: unknown): void;
  /** Their COMMIT failed: they may have landed. */
  reject(error: unknown): void;
}

interface LedgerQueue {
  pending: Pending[];
  running: boolean;
  /** The answers of the last committed batch, held until the next batch is under way (see holdAnswers). */
  held?: { send(): void; deadline: NodeJS.Timeout };
}

/** Bounded so one batch's statements and its hold on the ledger's counter row stay short. */
const maxBatch = (): number => getConfig().ledgerGroupCommitMaxBatch;

/** Longest the answers of a committed batch wait for the next batch to reach its counter bump (see holdAnswers). */
const ANSWER_HOLD_MS = 2;

/** Whether writes go through group commit; `LEDGER_GROUP_COMMIT=off` keeps one database transaction per write. */
export const groupCommitEnabled = (): boolean => getConfig().ledgerGroupCommit;

const queues = new WeakMap<Knex, Map<string, LedgerQueue>>();

/**
 * Commits a write (a transaction, a revert, a settle, a metadata write) with whatever other writes to the same ledger
 * arrive while this process's previous batch for that ledger is committing (group commit without a timer: an idle
 * ledger commits a lone write at once, a busy one coalesces). One batch per ledger is in flight per process, so
 * batches of one process never contend with each other; other processes' batches queue on the rows they share, as
 * single writes do. The promise settles after the batch's COMMIT returned: an acknowledged write is durable.
 */
export function groupCommit(db: Knex, ledger: string, write: LedgerWrite): Promise<WriteOutcome>;
export function groupCommit(db: Knex, ledger: string, write: MetadataWrite): Promise<MetadataOutcome | { error: unknown }>;
export function groupCommit(db: Knex, ledger: string, write: BatchWrite): Promise<BatchOutcome>;
export function groupCommit(db: Knex, ledger: string, write: BatchWrite): Promise<BatchOutcome> {
  return new Promise<BatchOutcome>((resolve, reject) =>
    enqueue(db, ledger, { writes: [write], resolve: ([outcome]) => resolve(outcome), failed: reject, reject, span: activeSpanContext() }),
  );
}

/**
 * Commits a bulk's batch (bulk.ts) with the other writes to the same ledger, as one unit: its writes stay together and
 * in order (their ids are consecutive), and the unit's rules (WriteUnit: stop at the first refusal, all or nothing)
 * apply to them alone. `failed` when the unit failed whole on its own before its COMMIT (a reference another process
 * took between the check and the insert): nothing of it was written. Throws when its COMMIT failed: it may have landed.
 */
export function groupCommitUnit(
  db: Knex,
  ledger: string,
  writes: BatchWrite[],
  unit: WriteUnit,
): Promise<{ outcomes: BatchOutcome[] } | { failed: unknown }> {
  return new Promise((resolve, reject) =>
    enqueue(db, ledger, {
      writes,
      unit,
      resolve: (outcomes) => resolve({ outcomes }),
      failed: (error) => resolve({ failed: error }),
      reject,
      span: activeSpanContext(),
    }),
  );
}

function enqueue(db: Knex, ledger: string, pending: Pending): void {
  let byLedger = queues.get(db);
  if (!byLedger) queues.set(db, (byLedger = new Map()));
  let queue = byLedger.get(ledger);
  if (!queue) byLedger.set(ledger, (queue = { pending: [], running: false }));
  queue.pending.push(pending);
  if (!queue.running) void drain(db, ledger, queue, byLedger);
}

async function drain(db: Knex, ledger: string, queue: LedgerQueue, byLedger: Map<string, LedgerQueue>): Promise<void> {
  queue.running = true;
  try {
    while (queue.pending.length > 0) await commitOrSplit(db, ledger, takeBatch(queue), queue);
  } finally {
    sendHeldAnswers(queue);
    queue.running = false;
    if (queue.pending.length === 0) byLedger.delete(ledger);
  }
}

/**
 * Takes the oldest requests' writes, in arrival order, up to maxBatch writes (a unit larger than that goes alone),
 * leaving for the next batch any request with an Idempotency-Key, or a hold to settle, already in this one or held
 * back from it: the second must see the first's outcome, as it would after its commit.
 */
function takeBatch(queue: LedgerQueue): Pending[] {
  const batch: Pending[] = [];
  const rest: Pending[] = [];
  const keys = new Set<string>();
  let size = 0;
  // A batch holding an atomic unit holds no script (assertAtomicUnitsDecidable): whichever comes first, the other waits.
  let atomic = false;
  let scripts = false;
  for (const item of queue.pending) {
    const itemAtomic = item.unit?.atomic === true;
    const itemScripts = item.writes.some(isScript);
    // A metadata write takes no key and settles no hold: several of one target in a batch are walked in order.
    const itemKeys = item.writes.flatMap((write) =>
      (isMetadata(write) ? [] : [write.idempotencyKey, write.settle?.holdId]).flatMap((k, i) => (k === undefined ? [] : [`${i}:${k}`])),
    );
    const waits =
      (size > 0 && size + item.writes.length > maxBatch()) || (atomic && itemScripts) || (itemAtomic && scripts) || itemKeys.some((k) => keys.has(k));
    // A request left for the next batch keeps its keys from this one too: a later request with one of them must not
    // pass it.
    for (const k of itemKeys) keys.add(k);
    if (waits) {
      rest.push(item);
      continue;
    }
    batch.push(item);
    size += item.writes.length;
    atomic ||= itemAtomic;
    scripts ||= itemScripts;
  }
  queue.pending = rest;
  return batch;
}

/**
 * A batch that fails as a whole (a database error, a reference taken by another process between the check and the
 * insert) is retried one write at a time, so one write's trouble is never its neighbours'.
 */
async function commitOrSplit(db: Knex, ledger: string, batch: Pending[], queue: LedgerQueue): Promise<void> {
  let written = false;
  const size = batch.reduce((n, p) => n + p.writes.length, 0);
  const started = process.hrtime.bigint();
  try {
    const commit = () =>
      inTransaction(db, async (trx) => {
        // The last batch is answered while PostgreSQL runs this batch's counter bump (see holdAnswers).
        const whileWriting = () => {
          if (queue.held) setImmediate(() => sendHeldAnswers(queue));
        };
        const result = await commitWrites(
          trx,
          ledger,
          batch.flatMap((p) => p.writes),
          { whileWriting, units: batch.flatMap((p) => p.writes.map(() => p.unit)) },
        );
        written = true;
        return result;
      });
    const outcomes = await (tracingEnabled() ? withSpan('ledger.group_commit', batchSpan(ledger, batch), commit) : commit());
    observeBatch('committed', size, started);
    holdAnswers(queue, () => {
      let at = 0;
      for (const p of batch) p.resolve(outcomes.slice(at, (at += p.writes.length)));
    });
  } catch (error) {
    observeBatch('failed', size, started);
    sendHeldAnswers(queue);
    // An error once every statement ran is the COMMIT's own (a connection lost during it): the batch may have landed,
    // so retrying its writes could apply them twice. Each request fails with that error and its client decides, as a
    // single write's client would (an Idempotency-Key makes the retry safe).
    if (written) return batch.forEach((p) => p.reject(error));
    if (batch.length === 1) return batch[0].failed(error);
    for (const item of batch) await commitOrSplit(db, ledger, [item], queue);
  }
}

/**
 * Answers a committed batch now when no write waits, otherwise once the next batch has sent the statement that bumps
 * its counter, or ANSWER_HOLD_MS later at most (when that batch waits for a connection, or fails its checks whole).
 * The API is one thread: answered at once, a batch's answers (0.5-0.7 ms of API CPU at 32 clients) delayed the next
 * batch's BEGIN and lock while PostgreSQL sat idle; held, they are sent while PostgreSQL runs the bump (+3-11% at 32
 * clients, one client unchanged; docs/benchmarks.md). Only answers wait: the batch is committed, so what they say is
 * already durable.
 */
function holdAnswers(queue: LedgerQueue, send: () => void): void {
  // A batch that accepted nothing never calls whileWriting and may commit within ANSWER_HOLD_MS: the answers still
  // held go out first, in commit order, rather than being replaced.
  sendHeldAnswers(queue);
  if (queue.pending.length === 0) return send();
  queue.held = { send, deadline: setTimeout(() => sendHeldAnswers(queue), ANSWER_HOLD_MS) };
}

function sendHeldAnswers(queue: LedgerQueue): void {
  const held = queue.held;
  if (!held) return;
  queue.held = undefined;
  clearTimeout(held.deadline);
  held.send();
}

/**
 * A batch's span. Drain runs in the context of the write that started it, so the span's parent is chosen here: a
 * batch of one write is part of that write's trace (its SQL under the request that made it); a batch of several
 * serves several traces, so it starts a trace of its own that links each writer's span (OTel's batch pattern), and
 * each request's trace leads to the commit its write was part of.
 */
function batchSpan(ledger: string, batch: Pending[]): SpanOptions {
  const attributes = { 'ledger.name': ledger, 'ledger.batch_size': batch.reduce((n, p) => n + p.writes.length, 0) };
  const only = batch.length === 1 ? batch[0].span : undefined;
  if (only) return { attributes, parent: only };
  return { attributes, root: true, links: batch.flatMap((p) => (p.span ? [{ context: p.span }] : [])) };
}

function observeBatch(outcome: 'committed' | 'failed', size: number, started: bigint): void {
  metrics.groupCommitBatchSize.observe({ outcome }, size);
  metrics.groupCommitDuration.observe({ outcome }, secondsSince(started));
}
