import { isApiError } from '../../lib/errors';
import { inTransaction, translateDbError } from '../../db/errors';
import { addAccountMetadata } from './accounts';
import { createTransaction } from './create-transaction';
import { deleteAccountMetadata, deleteTransactionMetadata } from './delete-metadata';
import { revertTransaction } from './revert-transaction';
import { addTransactionMetadata } from './transactions';
import type { Db } from '../../db/knex';
import { assertLedgerExists } from './ledgers';
import type { CreateTransactionInput, Executor, LedgerTransaction } from './types';

type Target = { targetType: 'ACCOUNT'; targetId: string } | { targetType: 'TRANSACTION'; targetId: bigint };

/** One element of `POST /{ledger}/_bulk`, as Formance's v2 bulk (`ik` is the element's idempotency key). */
export type BulkElement =
  | { action: 'CREATE_TRANSACTION'; ik?: string; data: CreateTransactionInput }
  | { action: 'ADD_METADATA'; ik?: string; data: Target & { metadata: Record<string, string> } }
  | { action: 'REVERT_TRANSACTION'; ik?: string; data: { id: bigint; force?: boolean; atEffectiveDate?: boolean; metadata?: Record<string, string> } }
  | { action: 'DELETE_METADATA'; ik?: string; data: Target & { key: string } };

export type BulkResult =
  | { responseType: 'CREATE_TRANSACTION' | 'REVERT_TRANSACTION'; data: LedgerTransaction }
  | { responseType: 'ADD_METADATA' | 'DELETE_METADATA' }
  | { responseType: 'ERROR'; errorCode: string; errorDescription: string };

/** Thrown inside an atomic bulk's transaction to undo everything after an element failed. */
class AtomicBulkFailed extends Error {
  constructor(readonly index: number, readonly reason: unknown) {
    super('atomic bulk failed');
  }
}

async function apply(db: Executor, ledger: string, element: BulkElement): Promise<BulkResult> {
  switch (element.action) {
    case 'CREATE_TRANSACTION': {
      const { transaction } = await createTransaction(db, ledger, element.data, { idempotencyKey: element.ik });
      return { responseType: 'CREATE_TRANSACTION', data: transaction };
    }
    case 'REVERT_TRANSACTION': {
      const { id, ...options } = element.data;
      return { responseType: 'REVERT_TRANSACTION', data: await revertTransaction(db, ledger, id, options) };
    }
    case 'ADD_METADATA': {
      const { data } = element;
      if (data.targetType === 'ACCOUNT') await addAccountMetadata(db, ledger, data.targetId, data.metadata);
      else await addTransactionMetadata(db, ledger, data.targetId, data.metadata);
      return { responseType: 'ADD_METADATA' };
    }
    case 'DELETE_METADATA': {
      const { data } = element;
      if (data.targetType === 'ACCOUNT') await deleteAccountMetadata(db, ledger, data.targetId, data.key);
      else await deleteTransactionMetadata(db, ledger, data.targetId, data.key);
      return { responseType: 'DELETE_METADATA' };
    }
  }
}

/** A business failure becomes the element's ERROR result; anything else (the database down) fails the request. */
function asErrorResult(cause: unknown): BulkResult {
  const error = translateDbError(cause);
  if (!isApiError(error) || error.status >= 500) throw error;
  return { responseType: 'ERROR', errorCode: error.code, errorDescription: error.message };
}

/**
 * Runs the elements in order. Atomic: one database transaction for all of them, so a failing element leaves no trace
 * of any (their events included) and the failure is returned as `failedAt`. Otherwise each element commits on its own
 * and processing stops at the first failure unless `continueOnFailure`; the results cover the elements that ran.
 * @throws ApiError LEDGER_NOT_FOUND (checked first), SERVICE_UNAVAILABLE
 */
export async function runBulk(
  db: Db,
  ledger: string,
  elements: BulkElement[],
  options: { atomic?: boolean; continueOnFailure?: boolean } = {},
): Promise<{ results: BulkResult[]; failedAt?: number; failure?: BulkResult & { responseType: 'ERROR' } }> {
  await assertLedgerExists(db, ledger);
  if (options.atomic) {
    try {
      // inTransaction retries the whole bulk on a deadlock or serialization failure: nothing of it was written.
      const results = await inTransaction(db, async (trx) => {
        const done: BulkResult[] = [];
        for (const [index, element] of elements.entries()) {
          try {
            done.push(await apply(trx, ledger, element));
          } catch (error) {
            // A deadlock or an outage is not the element's fault: rethrown as is, it is retried or answered 503.
            const translated = translateDbError(error);
            if (!isApiError(translated) || translated.status >= 500) throw error;
            throw new AtomicBulkFailed(index, translated);
          }
        }
        return done;
      });
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
      result = await apply(db, ledger, element);
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
