import { isApiError } from '../../lib/errors';
import { inTransaction, translateDbError } from '../../db/errors';
import { addAccountMetadata } from './accounts';
import { createTransaction, type TransactionRequest } from './create-transaction';
import { deleteAccountMetadata, deleteTransactionMetadata } from './delete-metadata';
import { revertWithLog } from './revert-transaction';
import { findSchema } from './schemas';
import { scriptPairs } from './script';
import { addTransactionMetadata } from './transactions';
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { assertLedgerWritable } from './ledgers';
import type { Executor, LedgerTransaction, Posting } from './types';
import { lockVolumes } from './volumes';

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
 * Takes, before an atomic bulk's first element writes (or v1's batch's first transaction), the row locks its elements will need, in the order every ledger
 * writer takes them: the transactions it reverts or gives metadata (by id, as a single revert locks its original
 * first), the volume rows of every posting (lockVolumes' sorted order), the accounts it gives metadata; the ledger row
 * comes last, locked by the first element's insert and held to the commit.
 * Locking element by element instead, a bulk held element n's rows and the ledger row while waiting for element
 * n+1's: two bulks (or a bulk and a group-commit batch) needing the same accounts in other orders deadlocked, each
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

/** The last atomic bulk queued on each ledger in this process (see oneAtATime). */
const atomicTails = new WeakMap<Db, Map<string, Promise<unknown>>>();

/**
 * Runs this process's atomic bulks of one ledger one after the other, in arrival order. They serialize in the database
 * anyway (each holds the ledger row from its first insert to its commit), but each waited there holding a pooled
 * connection: 60 parallel atomic bulks on one ledger took the whole pool, and the bulks behind them, with every other
 * request of the process, timed out acquiring a connection (503). Queued here, a waiting bulk holds nothing.
 * Bulks of other processes still queue on the rows, as any writer does.
 */
function oneAtATime<T>(db: Db, ledger: string, work: () => Promise<T>): Promise<T> {
  let tails = atomicTails.get(db);
  if (!tails) atomicTails.set(db, (tails = new Map()));
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

async function apply(db: Executor, ledger: string, element: BulkElement, schemaVersion: string | undefined): Promise<BulkResult> {
  const schema = schemaVersion !== undefined ? { schemaVersion } : {};
  switch (element.action) {
    case 'CREATE_TRANSACTION': {
      const { force, ...data } = element.data;
      const { transaction, logId } = await createTransaction(db, ledger, data, { idempotencyKey: element.ik, force, ...schema });
      return { responseType: 'CREATE_TRANSACTION', data: transaction, logID: logId ?? NO_LOG };
    }
    case 'REVERT_TRANSACTION': {
      const { id, ...options } = element.data;
      const { revert, logId } = await revertWithLog(db, ledger, id, { ...options, ...schema });
      return { responseType: 'REVERT_TRANSACTION', data: revert, logID: logId ?? NO_LOG };
    }
    case 'ADD_METADATA': {
      const { data } = element;
      const logId =
        data.targetType === 'ACCOUNT'
          ? await addAccountMetadata(db, ledger, data.targetId, data.metadata, schema)
          : await addTransactionMetadata(db, ledger, data.targetId, data.metadata, schema);
      return { responseType: 'ADD_METADATA', logID: logId ?? NO_LOG };
    }
    case 'DELETE_METADATA': {
      const { data } = element;
      const logId =
        data.targetType === 'ACCOUNT'
          ? await deleteAccountMetadata(db, ledger, data.targetId, data.key)
          : await deleteTransactionMetadata(db, ledger, data.targetId, data.key);
      return { responseType: 'DELETE_METADATA', logID: logId ?? NO_LOG };
    }
  }
}

/** A business failure becomes the element's ERROR result; anything else (the database down) fails the request. */
function asErrorResult(cause: unknown): BulkResult {
  const error = translateDbError(cause);
  if (!isApiError(error) || error.status >= 500) throw error;
  return { responseType: 'ERROR', errorCode: error.code, errorDescription: error.message, logID: NO_LOG };
}

/**
 * Runs the elements in order. Atomic: one database transaction for all of them, so a failing element leaves no trace
 * of any (their events included) and the failure is returned as `failedAt`. Otherwise each element commits on its own
 * and processing stops at the first failure unless `continueOnFailure`; the results cover the elements that ran.
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
  if (options.schemaVersion !== undefined) await findSchema(db, ledger, options.schemaVersion);
  if (options.atomic) {
    try {
      // inTransaction retries the whole bulk on a deadlock or serialization failure: nothing of it was written.
      const results = await oneAtATime(db, ledger, () =>
        inTransaction(db, async (trx) => {
          await lockAhead(trx, ledger, elements);
          const done: BulkResult[] = [];
          for (const [index, element] of elements.entries()) {
            try {
              done.push(await apply(trx, ledger, element, options.schemaVersion));
            } catch (error) {
              // A deadlock or an outage is not the element's fault: rethrown as is, it is retried or answered 503.
              const translated = translateDbError(error);
              if (!isApiError(translated) || translated.status >= 500) throw error;
              throw new AtomicBulkFailed(index, translated);
            }
          }
          return done;
        }),
      );
      return { results };
    } catch (error) {
      if (!(error instanceof AtomicBulkFailed)) throw error;
      return { results: [], failedAt: error.index, failure: asErrorResult(error.reason) as BulkResult & { responseType: 'ERROR' } };
    }
  }
  const results: BulkResult[] = [];
  let failedAt: number | undefined;
  for (const [index, element] of elements.entries()) {
    let result: BulkResult;
    try {
      result = await apply(db, ledger, element, options.schemaVersion);
    } catch (error) {
      result = asErrorResult(error);
    }
    results.push(result);
    if (result.responseType === 'ERROR') {
      failedAt ??= index;
      if (!options.continueOnFailure) break;
    }
  }
  return { results, ...(failedAt !== undefined ? { failedAt, failure: results[failedAt] as BulkResult & { responseType: 'ERROR' } } : {}) };
}
