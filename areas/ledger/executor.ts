import type { Knex } from 'knex';
import { inTransaction } from '../../db/errors';
import type { Executor } from './types';

/**
 * Runs a ledger write atomically. Given a transaction, the work joins it (no own transaction, no retry: the caller's
 * `inTransaction` retries the whole unit, its own rows included); given the pool, it gets its own transaction, retried
 * on deadlock or serialization failure.
 */
export function inWriteTransaction<T>(db: Executor, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  if ((db as Knex.Transaction).isTransaction) return work(db as Knex.Transaction);
  return inTransaction(db as Knex, work);
}
