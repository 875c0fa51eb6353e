import type { Db, Executor } from '../../../db/knex';
import type { Page, PageRequest } from '../../../db/pagination';
import { createPool, getPool, getPoolBalances, listPools, updatePoolQuery, type Pool, type PoolQuery } from './pools';

/**
 * Formance's payments v1 pools over the same pools as v3: `accounts` names the members (for a dynamic pool, the
 * INTERNAL accounts its query matches when read), `type` is STATIC or DYNAMIC and `query` is a dynamic pool's filter.
 * `createdAt` is kept (v1 does not define it; clients ignore it).
 */
export interface PoolV1 {
  id: string;
  name: string;
  accounts: string[];
  type: 'STATIC' | 'DYNAMIC';
  query?: PoolQuery;
  createdAt: Date;
}
const presentPoolV1 = (p: Pool): PoolV1 => ({
  id: p.id,
  name: p.name,
  accounts: p.poolAccounts,
  type: p.type,
  ...(p.query !== undefined ? { query: p.query } : {}),
  createdAt: p.createdAt,
});

/** Throws VALIDATION (malformed query, both accounts and a query, unknown or EXTERNAL account), CONFLICT (name taken). */
export async function createPoolV1(db: Db, input: { name: string; accountIDs?: string[]; query?: PoolQuery }): Promise<PoolV1> {
  return getPoolV1(
    db,
    await createPool(
      db,
      input.query !== undefined
        ? { name: input.name, accountIDs: input.accountIDs, query: input.query }
        : { name: input.name, accountIDs: input.accountIDs ?? [] },
    ),
  );
}

/** Replaces a dynamic pool's query, as v3 does. Throws NOT_FOUND, VALIDATION (static pool, malformed query). */
export async function updatePoolQueryV1(db: Db, id: string, query: PoolQuery): Promise<void> {
  await updatePoolQuery(db, id, query);
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
export interface PoolBalanceV1 {
  asset: string;
  amount: bigint;
  relatedAccounts: string[];
}

/** Throws NOT_FOUND. */
export async function getPoolBalancesV1(db: Executor, id: string): Promise<PoolBalanceV1[]> {
  const sums = await getPoolBalances(db, id);
  const members = await db('payments_pool_accounts as p')
    .join('payments_balances as b', 'b.account_id', 'p.account_id')
    .where('p.pool_id', id)
    .orderBy('p.account_id')
    .select('b.asset', 'p.account_id');
  return sums.map((s) => ({ ...s, relatedAccounts: members.filter((m: any) => m.asset === s.asset).map((m: any) => m.account_id) }));
}
