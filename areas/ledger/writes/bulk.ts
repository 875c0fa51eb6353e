import { isApiError } from '../../../lib/errors';
import { inTransaction, translateDbError } from '../../../db/errors';
import { pipelineWrite, type TransactionRequest } from './create-transaction';
import { checkedMetadataWrite } from './metadata-write';
import { revertWrite } from './revert-transaction';
import { findSchema, type ParsedSchema } from '../rules/schemas';
import { scriptPairs } from './script';
import { getTransaction } from '../reads/transactions';
import type { Knex } from 'knex';
import type { Db } from '../../../db/knex';
import { assertLedgerWritable } from '../ledgers';
import type { Executor, LedgerTransaction, Posting } from '../types';
import { lockVolumes } from '../reads/volumes';
import { commitWrites, type BatchOutcome, type BatchWrite } from './write-pipeline';
import { ABORTED, asOneUnit, isPlainPostings, NOT_RUN } from './write-units';
import { groupCommitEnabled, groupCommitUnit } from './group-commit';

type Target = { targetType: 'ACCOUNT'; targetId: string } | { targetType: 'TRANSACTION'; targetId: bigint };

/** One element of `POST /{ledger}/_bulk`, as Formance's v2 bulk (`ik` is the element's idempotency key). */
export type BulkElement =
  | { action: 'CREATE_TRANSACTION'; ik?: string; data: TransactionRequest & { force?: boolean } }
  | { action: 'ADD_METADATA'; ik?: string; data: Target & { metadata: Record<string, string> } }
  | { action: 'REVERT_TRANSACTION'; ik?: string; data: { id: bigint; force?: boolean; atEffectiveDate?: boolean; metadata?: Record<string, string> } }
  | { action: 'DELETE_METADATA'; ik?: string; data: Target & { key: string } };

/**
 * `logID` is the id of the log the element appended (Formance's V2BulkElementResult), -1 when it appended none: an
 * error, or the deletion of an absent key.
 */
export type BulkResult =
  | { responseType: 'CREATE_TRANSACTION' | 'REVERT_TRANSACTION'; data: LedgerTransaction; logID: bigint }
  | { responseType: 'ADD_METADATA' | 'DELETE_METADATA'; logID: bigint }
  | { responseType: 'ERROR'; errorCode: string; errorDescription: string; logID: bigint };

const NO_LOG = -1n;

/**
 * Takes, before the first batch of an atomic bulk of several batches writes (one batch locks its rows itself, in the
 * same order), the row locks its elements will need, in the order every ledger writer takes them: the transactions it reverts or gives metadata (by id, as a single revert locks its original
 * first), the volume rows of every posting (lockVolumes' sorted order), the accounts it gives metadata; the ledger row
 * comes last, locked by the first batch's counter bump and held to the commit.
 * Locking batch by batch instead, a bulk held batch n's rows and the ledger row while waiting for batch n+1's: two bulks (or a bulk and a group-commit batch) needing the same accounts in other orders deadlocked, each
 * deadlock costing PostgreSQL's deadlock_timeout (1 s) before one was aborted and retried. The elements' own locks
 * later find the rows already held. A script's pairs come from one run without locks (scriptPairs); one that reads
 * something else once earlier elements moved balances, or a template (its text needs the schema), locks as it runs,
 * where a rare deadlock is retried with the whole bulk (inTransaction).
 */
export async function lockAhead(trx: Knex.Transaction, ledger: string, elements: BulkElement[]): Promise<void> {
  const pairs: Array<[string, string]> = [];
  const ofPostings = (postings: Posting[]) => postings.forEach((p) => pairs.push([p.source, p.asset], [p.destination, p.asset]));
  const transactionIds = new Set<string>();
  const reverted = new Set<string>();
  const accounts = new Set<string>();
  const seen = new Map<string, bigint>();
  for (const element of elements) {
    if (element.action === 'CREATE_TRANSACTION') {
      const { postings, script } = element.data;
      if (postings) ofPostings(postings);
      else if (script?.plain !== undefined && script.template === undefined)
        pairs.push(...(await scriptPairs(trx, ledger, { plain: script.plain, vars: script.vars }, seen)));
    } else if (element.action === 'REVERT_TRANSACTION') {
      transactionIds.add(element.data.id.toString());
      reverted.add(element.data.id.toString());
    } else if (element.data.targetType === 'TRANSACTION') {
      transactionIds.add(element.data.targetId.toString());
    } else {
      accounts.add(element.data.targetId);
    }
  }
  if (transactionIds.size > 0) {
    const rows = await trx.raw(
      `SELECT id::text AS id, postings FROM ledger_transactions WHERE ledger = ? AND id = ANY(?::bigint[]) ORDER BY id FOR UPDATE`,
      [ledger, [...transactionIds]],
    );
    // A revert moves the original's accounts and assets back: the same pairs.
    for (const row of rows.rows as Array<{ id: string; postings: Posting[] }>) if (reverted.has(row.id)) ofPostings(row.postings);
  }
  await lockVolumes(trx, ledger, pairs);
  if (accounts.size > 0) {
    await trx.raw(`SELECT 1 FROM ledger_accounts WHERE ledger = ? AND address = ANY(?::text[]) ORDER BY address FOR UPDATE`, [ledger, [...accounts]]);
  }
}

/** The last bulk transaction queued on each ledger in this process (see oneAtATime). */
const bulkTails = new WeakMap<Db, Map<string, Promise<unknown>>>();

/**
 * Runs this process's bulk transactions of one ledger that do not join the group commit (a bulk with scripts, reverts
 * or metadata, an atomic bulk of several batches, every bulk when group commit is off) one after the other, in arrival
 * order. They serialize in the database anyway (each holds the ledger row from its counter bump to its commit), but
 * each waited there holding a pooled connection: 60 parallel atomic bulks on one ledger took the whole pool, and the
 * bulks behind them, with every other request of the process, timed out acquiring a connection (503). Queued here, a
 * waiting bulk holds nothing. Bulks of other processes, and the group commit's batches, still queue on the rows.
 */
function oneAtATime<T>(db: Db, ledger: string, work: () => Promise<T>): Promise<T> {
  let tails = bulkTails.get(db);
  if (!tails) bulkTails.set(db, (tails = new Map()));
  const previous = tails.get(ledger) ?? Promise.resolve();
  const run = previous.then(work);
  const tail = run.catch(() => undefined);
  tails.set(ledger, tail);
  void tail.then(() => {
    if (tails.get(ledger) === tail) tails.delete(ledger);
  });
  return run;
}

/** Thrown inside an atomic bulk's transaction to undo everything after an element failed. */
class AtomicBulkFailed extends Error {
  constructor(
    readonly index: number,
    readonly reason: unknown,
  ) {
    super('atomic bulk failed');
  }
}

/**
 * An element as a write of the pipeline, checked as its single route checks it.
 * @throws ApiError VALIDATION (and a transaction's NO_POSTINGS), the element's own error
 */
function toWrite(element: BulkElement, schema: ParsedSchema | undefined): BatchWrite {
  switch (element.action) {
    case 'CREATE_TRANSACTION': {
      const { force, ...data } = element.data;
      return pipelineWrite(data, { idempotencyKey: element.ik, force, schema });
    }
    case 'REVERT_TRANSACTION': {
      const { id, ...options } = element.data;
      return revertWrite(id, { ...options, schema });
    }
    case 'ADD_METADATA':
    case 'DELETE_METADATA': {
      const { data } = element;
      const target =
        data.targetType === 'ACCOUNT' ? { type: 'ACCOUNT' as const, id: data.targetId } : { type: 'TRANSACTION' as const, id: data.targetId };
      // Deleting a key is not checked against the chart, as on the single route.
      return 'metadata' in data ? checkedMetadataWrite(target, { set: data.metadata }, schema) : checkedMetadataWrite(target, { delete: data.key });
    }
  }
}

/** A business failure becomes the element's ERROR result; anything else (the database down) fails the request. */
function asErrorResult(cause: unknown): BulkResult {
  const error = translateDbError(cause);
  if (!isApiError(error) || error.status >= 500) throw error;
  return { responseType: 'ERROR', errorCode: error.code, errorDescription: error.message, logID: NO_LOG };
}

/** Consecutive elements the write pipeline commits as one batch, or an element refused before it reached the pipeline. */
type Step = { start: number; writes: BatchWrite[] } | { start: number; error: unknown };

/**
 * Groups the elements, in order, into batches of the write pipeline, split where an Idempotency-Key repeats (the second
 * must see the first's outcome, as after its commit) and at an element refused by its own checks (its error is its
 * step, so the elements before it run first, as they did one at a time).
 */
function planSteps(elements: BulkElement[], schema: ParsedSchema | undefined): Step[] {
  const steps: Step[] = [];
  let batch: { start: number; writes: BatchWrite[] } | undefined;
  const keys = new Set<string>();
  for (const [index, element] of elements.entries()) {
    let write: BatchWrite;
    try {
      write = toWrite(element, schema);
    } catch (error) {
      batch = undefined;
      steps.push({ start: index, error });
      continue;
    }
    const key = 'request' in write ? write.idempotencyKey : undefined;
    if (!batch || (key !== undefined && keys.has(key))) {
      batch = { start: index, writes: [] };
      keys.clear();
      steps.push(batch);
    }
    batch.writes.push(write);
    if (key !== undefined) keys.add(key);
  }
  return steps;
}

/** Every element a step of its own: the bulk as a batch of one per element, for a batch that failed whole. */
const oneByOne = (steps: Step[]): Step[] =>
  steps.flatMap((step): Step[] => ('error' in step ? [step] : step.writes.map((write, n) => ({ start: step.start + n, writes: [write] }))));

/** An element's result from its write's outcome: its transaction and log, or the original's when its Idempotency-Key replayed it. */
async function resultOf(db: Executor, ledger: string, element: BulkElement, outcome: BatchOutcome): Promise<BulkResult> {
  if ('error' in outcome) return asErrorResult(outcome.error);
  if ('metadata' in outcome) return { responseType: element.action as 'ADD_METADATA' | 'DELETE_METADATA', logID: outcome.logId ?? NO_LOG };
  if ('hitTxid' in outcome) {
    const data = await getTransaction(db, ledger, outcome.hitTxid);
    // An answer stored before answers carried their log id replays with none (NO_LOG), as a single write's does.
    return { responseType: 'CREATE_TRANSACTION', data, logID: outcome.hitLogId ?? NO_LOG };
  }
  const responseType = element.action === 'REVERT_TRANSACTION' ? 'REVERT_TRANSACTION' : 'CREATE_TRANSACTION';
  return { responseType, data: outcome.transaction, logID: outcome.logId };
}

/** Thrown inside an atomic bulk's transaction when one of its batches failed whole, to run the bulk again element by element. */
class BatchFailed extends Error {
  constructor(readonly reason: unknown) {
    super('bulk batch failed');
  }
}

/**
 * An atomic bulk in one database transaction. A bulk that is one batch is locked by the pipeline (the transactions it
 * reverts or annotates, then every volume row its writes touch, scripts' included, in one sorted statement, before any
 * balance is checked, then the accounts it annotates); one of several steps takes every lock its steps need up front
 * (lockAhead), so overlapping atomic bulks never deadlock.
 */
async function runAtomic(db: Db, ledger: string, elements: BulkElement[], steps: Step[]): Promise<BulkResult[]> {
  // inTransaction retries the whole bulk on a deadlock or serialization failure: nothing of it was written.
  return inTransaction(db, async (trx) => {
    if (steps.length > 1) await lockAhead(trx, ledger, elements);
    const done: BulkResult[] = [];
    const fail = (index: number, error: unknown): never => {
      // A deadlock or an outage is not the element's fault: rethrown as is, it is retried or answered 503.
      const translated = translateDbError(error);
      if (!isApiError(translated) || translated.status >= 500) throw error;
      throw new AtomicBulkFailed(index, translated);
    };
    for (const step of steps) {
      if ('error' in step) fail(step.start, step.error);
      else {
        let outcomes: BatchOutcome[];
        try {
          outcomes = await commitWrites(trx, ledger, step.writes, { units: asOneUnit(step.writes, { stopAtFirstRefusal: true }) });
        } catch (error) {
          // Failed whole (a reference another process took between the check and the insert): which element is to blame
          // is known only element by element.
          const translated = translateDbError(error);
          if (!isApiError(translated) || translated.status >= 500) throw error;
          throw new BatchFailed(translated);
        }
        for (const [n, outcome] of outcomes.entries()) {
          if ('error' in outcome) fail(step.start + n, outcome.error);
          done.push(await resultOf(trx, ledger, elements[step.start + n], outcome));
        }
      }
    }
    return done;
  });
}

/**
 * A non-atomic bulk's batch in a database transaction of its own (group commit off), each write with its own outcome (a refused write
 * leaves the others as they are). `failed` when the batch failed whole before its COMMIT: its elements then run one by
 * one, so one element's trouble is never its neighbours'. A COMMIT that failed may have landed: its error is the request's.
 */
async function commitBatch(
  db: Db,
  ledger: string,
  writes: BatchWrite[],
  stopAtFirstRefusal: boolean,
): Promise<{ outcomes: BatchOutcome[] } | { failed: unknown }> {
  let written = false;
  try {
    return {
      outcomes: await inTransaction(db, async (trx) => {
        const outcomes = await commitWrites(trx, ledger, writes, { units: asOneUnit(writes, { stopAtFirstRefusal }) });
        written = true;
        return outcomes;
      }),
    };
  } catch (error) {
    if (written) throw error;
    return { failed: error };
  }
}

/**
 * Runs the elements in order. Atomic: all or nothing, so a failing element leaves no trace of any (their events
 * included) and the failure is returned as `failedAt`. Otherwise each element has its own outcome and processing stops
 * at the first failure unless `continueOnFailure`; the results cover the elements that ran.
 * The elements, whatever their action, are committed as batches of the write pipeline (planSteps): one statement per
 * table for the whole batch, txids and log ids dense in element order, each checked against what its predecessors left.
 * A bulk of plain postings joins the ledger's group commit, each batch as a unit (docs/ledger.md, "Ledger writes in
 * bulk"); any other bulk, and an atomic one of several batches, runs in database transactions of its own.
 * @throws ApiError LEDGER_NOT_FOUND (checked first), NOT_FOUND (schema version), SERVICE_UNAVAILABLE
 */
export async function runBulk(
  db: Db,
  ledger: string,
  elements: BulkElement[],
  options: { atomic?: boolean; continueOnFailure?: boolean; schemaVersion?: string } = {},
): Promise<{ results: BulkResult[]; failedAt?: number; failure?: BulkResult & { responseType: 'ERROR' } }> {
  await assertLedgerWritable(db, ledger);
  // The version is the request's, not an element's: an unknown one is the request's 404, as on the single routes,
  // rather than every element's error in a 400.
  const schema = options.schemaVersion !== undefined ? await findSchema(db, ledger, options.schemaVersion) : undefined;
  if (elements.length === 0) return { results: [] };
  const steps = planSteps(elements, schema);
  const [only] = steps;
  // Only bulks of plain postings join the group commit: one round of the pipeline each, nothing locked after the counter
  // bump. A bulk with scripts, reverts or metadata may need a second round, which locks rows while holding the ledger row:
  // batched with others, that would deadlock (retried after a second) with an atomic bulk holding those rows (lockAhead).
  // The same test as the pipeline's for an atomic unit (isPlainPostings), on the writes the elements became.
  const joins = groupCommitEnabled() && steps.every((step) => 'error' in step || step.writes.every(isPlainPostings));
  if (options.atomic && steps.length === 1 && 'writes' in only && joins) {
    // One batch of plain postings joins the group commit as an all-or-nothing unit, committed with the other bulks and
    // writes of the ledger. Failed whole, it runs in a transaction of its own below, element by element.
    const unit = await groupCommitUnit(db, ledger, only.writes, { atomic: true });
    if ('outcomes' in unit) {
      const refused = unit.outcomes.findIndex((o) => 'error' in o && o.error !== ABORTED && o.error !== NOT_RUN);
      if (refused >= 0) {
        const failure = asErrorResult((unit.outcomes[refused] as { error: unknown }).error) as BulkResult & { responseType: 'ERROR' };
        return { results: [], failedAt: refused, failure };
      }
      const results: BulkResult[] = [];
      for (const [n, outcome] of unit.outcomes.entries()) results.push(await resultOf(db, ledger, elements[n], outcome));
      return { results };
    }
  }
  if (options.atomic) {
    try {
      const results = await oneAtATime(db, ledger, async () => {
        try {
          return await runAtomic(db, ledger, elements, steps);
        } catch (error) {
          if (!(error instanceof BatchFailed)) throw error;
          return runAtomic(db, ledger, elements, oneByOne(steps));
        }
      });
      return { results };
    } catch (error) {
      if (!(error instanceof AtomicBulkFailed)) throw error;
      return { results: [], failedAt: error.index, failure: asErrorResult(error.reason) as BulkResult & { responseType: 'ERROR' } };
    }
  }
  const results: BulkResult[] = [];
  let failedAt: number | undefined;
  const record = (index: number, result: BulkResult): boolean => {
    results.push(result);
    if (result.responseType !== 'ERROR') return true;
    failedAt ??= index;
    return options.continueOnFailure === true;
  };
  const run = async (queue: Step[]): Promise<boolean> => {
    for (const step of queue) {
      if ('error' in step) {
        if (!record(step.start, asErrorResult(step.error))) return false;
        continue;
      }
      // Joined to the group commit, the batch is committed with the other bulks and writes of the ledger (one unit of
      // its batch, stopping at its own first refusal); otherwise in a transaction of its own.
      const stopAtFirstRefusal = !options.continueOnFailure;
      const batch = joins
        ? await groupCommitUnit(db, ledger, step.writes, { stopAtFirstRefusal })
        : await oneAtATime(db, ledger, () => commitBatch(db, ledger, step.writes, stopAtFirstRefusal));
      if ('failed' in batch) {
        if (step.writes.length === 1) {
          if (!record(step.start, asErrorResult(batch.failed))) return false;
        } else if (!(await run(oneByOne([step])))) return false;
        continue;
      }
      for (const [n, outcome] of batch.outcomes.entries()) {
        if (!record(step.start + n, await resultOf(db, ledger, elements[step.start + n], outcome))) return false;
      }
    }
    return true;
  };
  await run(steps);
  return { results, ...(failedAt !== undefined ? { failedAt, failure: results[failedAt] as BulkResult & { responseType: 'ERROR' } } : {}) };
}
