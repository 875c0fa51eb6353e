import type { Executor } from '../../db/knex';
import { isoTimestampText, jsonText } from '../../db/json-sql';
import { keysetJsonPage, keysetPage, type JsonPage, type Page, type PageRequest } from '../../db/pagination';
import { getAccount } from './accounts';
import { ACCOUNTS_TABLE, compilePaymentsQuery } from './payments-query';

export interface AccountsFilters {
  query?: string;
}

const member = (name: string, sql: string) => `',"${name}":' || ${jsonText(sql)}`;
/** A jsonb column's text, `{}` for a JSON null, as the presenters' `?? {}` write it. */
const objectOrEmpty = (column: string) => `coalesce(nullif(${column}, 'null'::jsonb), '{}'::jsonb)::text`;
/** A member written only when the column holds a non-empty value, as presentAccount leaves out falsy ones. */
const optionalMember = (name: string, column: string) => `CASE WHEN ${column}::text <> '' THEN ${member(name, column)} ELSE '' END`;

/**
 * An account as PostgreSQL writes it, member for member as presentAccount (v3) or presentAccountV1 (v1) and
 * stringifyJson would: the same members in the same order, dates in ISO 8601 UTC with milliseconds. metadata and raw
 * are jsonb's own text (the same JSON, its own spacing and key order).
 */
const ACCOUNT_JSON = {
  v3: `'{"id":' || ${jsonText('a.id')} || ${member('connectorID', 'a.connector_id')} || ${member('provider', 'upper(c.provider)')}
    || ${member('reference', 'a.reference')} || ${member('type', 'a.type')} || ${optionalMember('name', 'a.name')}
    || ${optionalMember('defaultAsset', 'a.default_asset')} || ${member('createdAt', isoTimestampText('a.created_at'))}
    || ',"metadata":' || ${objectOrEmpty('a.metadata')} || ',"raw":' || a.raw::text || ${optionalMember('psuID', 'a.psu_id')}
    || ${optionalMember('openBankingConnectionID', 'a.open_banking_connection_id')} || '}'`,
  v1: `'{"id":' || ${jsonText('a.id')} || ${member('reference', 'a.reference')} || ${member('connectorID', 'a.connector_id')}
    || ${member('provider', 'upper(c.provider)')} || ${member('createdAt', isoTimestampText('a.created_at'))}
    || ${member('accountName', "coalesce(a.name, '')")} || ${member('defaultAsset', "coalesce(a.default_asset, '')")}
    || ${member('defaultCurrency', "coalesce(a.default_asset, '')")} || ${member('type', 'a.type')}
    || ',"metadata":' || ${objectOrEmpty('a.metadata')} || ',"raw":' || ${objectOrEmpty('a.raw')}
    || ${member('pools', "coalesce((SELECT array_agg(pa.pool_id::text ORDER BY pa.pool_id) FROM payments_pool_accounts pa WHERE pa.account_id = a.id), '{}'::text[])")} || '}'`,
};

/**
 * Formance's account list, v3 or v1: newest first, v3 filtered by the payments `query` language over account fields.
 * PostgreSQL renders the page (keysetJsonPage): a page of 1000 accounts, each with its provider's raw data, cost the API
 * 12–13 ms of CPU when each row was parsed into objects and written out again. The cursor key is
 * `[createdAt, id]`, as before. Throws VALIDATION (query, cursor).
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
