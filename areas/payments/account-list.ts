import type { Executor } from '../../db/knex';
import { keysetPage, type Page, type PageRequest } from '../../db/pagination';
import { type Account, getAccount, presentAccount } from './accounts';
import { ACCOUNTS_TABLE, compilePaymentsQuery } from './payments-query';

export interface AccountsFilters { query?: string }

/** Formance's v3 account list: newest first, filtered by the payments `query` language over account fields. Throws VALIDATION. */
export async function listAccounts(db: Executor, filters: AccountsFilters, page: PageRequest): Promise<Page<Account>> {
  const query = db('payments_accounts as a').join('payments_connectors as c', 'c.id', 'a.connector_id').select('a.*', 'c.provider');
  const condition = filters.query !== undefined ? compilePaymentsQuery(filters.query, ACCOUNTS_TABLE) : undefined;
  if (condition) query.whereRaw(condition.sql, condition.bindings as any[]);
  const rows = await keysetPage<any>(query, ['a.created_at', 'a.id'], 'desc', page);
  return { ...rows, items: rows.items.map((r) => presentAccount(r, r.provider)) };
}

export const accountKey = (a: Account): unknown[] => [a.createdAt.toISOString(), a.id];

export interface Balance { accountID: string; asset: string; balance: bigint; createdAt: Date; lastUpdatedAt: Date }
export interface BalancesFilters { asset?: string; fromTimestamp?: string; toTimestamp?: string }

/**
 * An account's balances, one per asset. Only the last fetched balance of each asset is kept (no history), so the
 * time range selects the balances whose last update falls in it. Throws NOT_FOUND for an unknown account.
 */
export async function listAccountBalances(db: Executor, accountID: string, filters: BalancesFilters, page: PageRequest): Promise<Page<Balance>> {
  await getAccount(db, accountID);
  const query = db('payments_balances').where({ account_id: accountID }).select('*');
  if (filters.asset) query.where({ asset: filters.asset });
  if (filters.fromTimestamp) query.where('last_updated_at', '>=', new Date(filters.fromTimestamp));
  if (filters.toTimestamp) query.where('last_updated_at', '<', new Date(filters.toTimestamp));
  const rows = await keysetPage<any>(query, ['asset'], 'asc', page);
  return {
    ...rows,
    items: rows.items.map((r) => ({ accountID: r.account_id, asset: r.asset, balance: BigInt(r.balance), createdAt: r.created_at, lastUpdatedAt: r.last_updated_at })),
  };
}

export const balanceKey = (b: Balance): unknown[] => [b.asset];
