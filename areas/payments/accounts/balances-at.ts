import { settleTransactionsBefore } from '../../../db/settle';
import type { Executor } from '../../../db/knex';
import { validationError } from '../../../lib/errors';
import { getPool } from './pools';

/**
 * The pool's balances as they were at `at`: per asset, the sum over the pool's accounts of each account's balance as
 * last fetched at or before `at` (payments_balance_history, written by a trigger on every change of
 * payments_balances; a balance deleted by then no longer counts). The pool's accounts are its current ones, as in
 * Formance. A past `at` is exact whenever the read runs: it first waits for the database transactions begun by then
 * (db/settle.ts), the only ones that can still record a balance at or before it.
 * Throws NOT_FOUND (pool), VALIDATION (at), SERVICE_UNAVAILABLE (a writer open since before `at`).
 */
export async function getPoolBalancesAt(
  db: Executor,
  id: string,
  at: Date,
): Promise<Array<{ asset: string; amount: bigint; relatedAccounts: string[] }>> {
  if (Number.isNaN(at.getTime())) throw validationError('at: invalid date');
  const pool = await getPool(db, id);
  if (pool.poolAccounts.length === 0) return [];
  if (at.getTime() <= Date.now()) await settleTransactionsBefore(db, at);
  const { rows } = await db.raw(
    `SELECT asset, sum(balance)::text AS amount, array_agg(account_id ORDER BY account_id) AS related FROM (
       SELECT DISTINCT ON (account_id, asset) account_id, asset, balance FROM payments_balance_history
       WHERE account_id = ANY(?::text[]) AND at <= ?
       ORDER BY account_id, asset, at DESC, seq DESC
     ) last WHERE balance IS NOT NULL GROUP BY asset ORDER BY asset`,
    [pool.poolAccounts, at],
  );
  return (rows as Array<{ asset: string; amount: string; related: string[] }>).map((r) => ({
    asset: r.asset,
    amount: BigInt(r.amount),
    relatedAccounts: r.related,
  }));
}
