import type { Executor } from '../../../db/knex';
import { isoTimestampText } from '../../../db/json-sql';
import { ACCOUNT_SHAPES } from './account-shapes';
import { keysetJsonPage, keysetPage, type JsonPage, type Page, type PageRequest } from '../../../db/pagination';
import { getAccount } from './accounts';
import { ACCOUNTS_TABLE, compilePaymentsQuery } from '../payments/payments-query';

export interface AccountsFilters {
  query?: string;
}

const ACCOUNT_JSON = { v3: ACCOUNT_SHAPES.v3.sql(), v1: ACCOUNT_SHAPES.v1.sql() };

/**
 * Formance's account list, v3 or v1: newest first, v3 filtered by the payments `query` language over account fields.
 * PostgreSQL renders the page (keysetJsonPage; each item by its shape's SQL, account-shapes.ts): a page of 1000
 * accounts, each with its provider's raw data, cost the API 12–13 ms of CPU when each row was parsed into objects and
 * written out again. The cursor key is `[createdAt, id]`, as before. Throws VALIDATION (query, cursor).
 */
export function listAccountsJson(db: Executor, filters: AccountsFilters, page: PageRequest, view: 'v3' | 'v1'): Promise<JsonPage> {
  const query = db('payments_accounts as a').join('payments_connectors as c', 'c.id', 'a.connector_id');
  const condition = filters.query !== undefined ? compilePaymentsQuery(filters.query, ACCOUNTS_TABLE) : undefined;
  if (condition) query.whereRaw(condition.sql, condition.bindings as any[]);
  return keysetJsonPage(db, query, ['a.created_at', 'a.id'], 'desc', page, {
    json: ACCOUNT_JSON[view],
    key: [isoTimestampText('a.created_at'), 'a.id'],
  });
}

export interface Balance {
  accountID: string;
  asset: string;
  balance: bigint;
  createdAt: Date;
  lastUpdatedAt: Date;
}
export interface BalancesFilters {
  asset?: string;
  fromTimestamp?: string;
  toTimestamp?: string;
}

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
    items: rows.items.map((r) => ({
      accountID: r.account_id,
      asset: r.asset,
      balance: BigInt(r.balance),
      createdAt: r.created_at,
      lastUpdatedAt: r.last_updated_at,
    })),
  };
}

export const balanceKey = (b: Balance): unknown[] => [b.asset];
