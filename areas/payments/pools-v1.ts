import { validationError } from '../../lib/errors';
import type { Db, Executor } from '../../db/knex';
import type { Page, PageRequest } from '../../db/pagination';
import { createPool, getPool, getPoolBalances, listPools, type Pool } from './pools';

/**
 * Formance's payments v1 pools over the same pools as v3: `accounts` names the members, and every pool is STATIC.
 * `createdAt` is kept (v1 does not define it; clients ignore it). Dynamic pools (a `query` selecting accounts) are not supported: a pool holds the accounts it is given.
 */
export interface PoolV1 { id: string; name: string; accounts: string[]; type: 'STATIC'; createdAt: Date }
const presentPoolV1 = (p: Pool): PoolV1 => ({ id: p.id, name: p.name, accounts: p.poolAccounts, type: 'STATIC', createdAt: p.createdAt });
const noDynamicPools = (where: string) => validationError(`${where}: dynamic pools (a query selecting accounts) are not supported; list the accounts instead`);

/** Throws VALIDATION (query, unknown or EXTERNAL account), CONFLICT (name taken). */
export async function createPoolV1(db: Db, input: { name: string; accountIDs?: string[]; query?: unknown }): Promise<PoolV1> {
  if (input.query !== undefined) throw noDynamicPools('body.query');
  return getPoolV1(db, await createPool(db, { name: input.name, accountIDs: input.accountIDs ?? [] }));
}

/** Always VALIDATION once the pool is known (NOT_FOUND before): see createPoolV1. */
export async function updatePoolQueryV1(db: Executor, id: string): Promise<never> {
  await getPool(db, id);
  throw noDynamicPools('body.query');
}

export async function getPoolV1(db: Executor, id: string): Promise<PoolV1> {
  return presentPoolV1(await getPool(db, id));
}

export async function listPoolsV1(db: Executor, page: PageRequest): Promise<Page<PoolV1>> {
  const pools = await listPools(db, page);
  return { ...pools, items: pools.items.map(presentPoolV1) };
}

/** Pools are listed newest first; this key pages them (the same columns as v3's). */
export const poolV1Key = (p: PoolV1): unknown[] => [p.createdAt.toISOString(), p.id];

/** v1's PoolBalance: the sum per asset of the members' last fetched balances, and which members hold the asset. */
export interface PoolBalanceV1 { asset: string; amount: bigint; relatedAccounts: string[] }

/** Throws NOT_FOUND. */
export async function getPoolBalancesV1(db: Executor, id: string): Promise<PoolBalanceV1[]> {
  const sums = await getPoolBalances(db, id);
  const members = await db('payments_pool_accounts as p').join('payments_balances as b', 'b.account_id', 'p.account_id')
    .where('p.pool_id', id).orderBy('p.account_id').select('b.asset', 'p.account_id');
  return sums.map((s) => ({ ...s, relatedAccounts: members.filter((m: any) => m.asset === s.asset).map((m: any) => m.account_id) }));
}
