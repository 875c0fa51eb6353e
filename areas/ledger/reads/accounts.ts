import type { Knex } from 'knex';
import { ACCOUNT_FIELDS, accountFields, compileLedgerQuery } from './ledger-query';
import { countRows, keysetPage, type Page, type PageRequest } from '../../../db/pagination';
import { aggregateBalancesAt } from './balances-at';
import { assertLedgerExists } from '../ledgers';
import { assertAddress, whereAddress } from '../rules/rules';
import type { Executor, Volumes } from '../types';
import { stringifyJson } from '../../../lib/json';

export interface LedgerAccount {
  address: string;
  metadata: Record<string, string>;
  volumes: Volumes;
  effectiveVolumes: Volumes;
}

interface VolumeRow {
  address: string;
  asset: string;
  input: string;
  output: string;
}

async function volumesOf(db: Executor, ledger: string, addresses: string[]): Promise<Map<string, Volumes>> {
  const rows: VolumeRow[] = await db('ledger_volumes')
    .where({ ledger })
    .whereIn('address', addresses)
    .select('address', 'asset', db.raw('input::text AS input'), db.raw('output::text AS output'))
    .orderBy(['address', 'asset']);
  const out = new Map<string, Volumes>();
  for (const row of rows) {
    const input = BigInt(row.input);
    const output = BigInt(row.output);
    if (!out.has(row.address)) out.set(row.address, {});
    out.get(row.address)![row.asset] = { input, output, balance: input - output };
  }
  return out;
}

/**
 * An account with its volumes. An account never used answers with empty volumes and metadata (ledger v1 did the
 * same; wallets rely on it). effectiveVolumes equal volumes: this ledger orders volumes by txid, not by timestamp.
 * @throws ApiError LEDGER_NOT_FOUND, VALIDATION
 */
export async function getAccount(db: Executor, ledger: string, address: string): Promise<LedgerAccount> {
  assertAddress(address, 'address');
  await assertLedgerExists(db, ledger);
  const row = await db('ledger_accounts').where({ ledger, address }).first('metadata');
  const volumes = (await volumesOf(db, ledger, [address])).get(address) ?? {};
  return { address, metadata: row?.metadata ?? {}, volumes, effectiveVolumes: volumes };
}

export interface AccountFilters {
  /** An address or a pattern (`users:` for one level, `users:...` for any depth). */
  address?: string;
  metadata?: Record<string, string>;
  /** Only addresses after this one (v1's `after`; the list is by address ascending). */
  after?: string;
  /** v1's balance filter: accounts holding at least one asset whose balance compares so with `value`. */
  balance?: { operator: BalanceOperator; value: bigint };
  /** Formance's JSON filter over ACCOUNT_FIELDS (areas/ledger/reads/ledger-query.ts). */
  query?: string;
}

export type BalanceOperator = 'e' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte';
const SQL_OPERATORS: Record<BalanceOperator, string> = { e: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' };

/** Accounts by address ascending. @throws ApiError LEDGER_NOT_FOUND */
export async function listAccounts(db: Executor, ledger: string, filters: AccountFilters, page: PageRequest): Promise<Page<LedgerAccount>> {
  await assertLedgerExists(db, ledger);
  const query = accountsQuery(db, ledger, filters).select('address', 'metadata');
  const result = await keysetPage<{ address: string; metadata: Record<string, string> }>(query, ['address'], 'asc', page);
  const volumes = await volumesOf(
    db,
    ledger,
    result.items.map((r) => r.address),
  );
  return {
    ...result,
    items: result.items.map((r) => {
      const v = volumes.get(r.address) ?? {};
      return { address: r.address, metadata: r.metadata ?? {}, volumes: v, effectiveVolumes: v };
    }),
  };
}

/** How many accounts match the filters of listAccounts (HEAD accounts, `Count` header). @throws ApiError LEDGER_NOT_FOUND */
export async function countAccounts(db: Executor, ledger: string, filters: AccountFilters): Promise<number> {
  await assertLedgerExists(db, ledger);
  return countRows(accountsQuery(db, ledger, filters));
}

function accountsQuery(db: Executor, ledger: string, filters: AccountFilters) {
  const query = db('ledger_accounts').where({ ledger });
  if (filters.address) whereAddress(query, filters.address);
  if (filters.metadata && Object.keys(filters.metadata).length > 0) query.whereRaw('metadata @> ?::jsonb', [stringifyJson(filters.metadata)]);
  if (filters.after !== undefined) query.where('address', '>', filters.after);
  const condition = compileLedgerQuery(
    filters.query,
    accountFields('ledger_accounts.ledger', 'ledger_accounts.address', 'ledger_accounts.metadata'),
    ACCOUNT_FIELDS,
  );
  if (condition) query.whereRaw(condition.sql, condition.bindings as Knex.RawBinding[]);
  if (filters.balance) {
    query.whereRaw(
      `EXISTS (SELECT 1 FROM ledger_volumes v WHERE v.ledger = ledger_accounts.ledger AND v.address = ledger_accounts.address AND v.input - v.output ${SQL_OPERATORS[filters.balance.operator]} ?::numeric)`,
      [filters.balance.value.toString()],
    );
  }
  return query;
}

const volumeAccountMetadata =
  '(SELECT am.metadata FROM ledger_accounts am WHERE am.ledger = ledger_volumes.ledger AND am.address = ledger_volumes.address)';

/**
 * Sum of balances per asset over the accounts matching `address` and `query` (ACCOUNT_FIELDS; all accounts when
 * absent: every asset sums to 0); with `pit`, as they were then (balances-at.ts).
 * @throws ApiError LEDGER_NOT_FOUND, VALIDATION (query)
 */
export async function aggregateBalances(
  db: Executor,
  ledger: string,
  filters: { address?: string; query?: string; pit?: Date; useInsertionDate?: boolean },
): Promise<Record<string, bigint>> {
  if (filters.pit)
    return aggregateBalancesAt(
      db,
      ledger,
      { address: filters.address, query: filters.query },
      { pit: filters.pit, useInsertionDate: filters.useInsertionDate },
    );
  const condition = compileLedgerQuery(
    filters.query,
    accountFields('ledger_volumes.ledger', 'ledger_volumes.address', volumeAccountMetadata),
    ACCOUNT_FIELDS,
  );
  await assertLedgerExists(db, ledger);
  const query = db('ledger_volumes')
    .where({ ledger })
    .select('asset', db.raw('sum(input - output)::text AS balance'))
    .groupBy('asset')
    .orderBy('asset');
  if (filters.address) whereAddress(query, filters.address);
  if (condition) query.whereRaw(condition.sql, condition.bindings as Knex.RawBinding[]);
  const rows: Array<{ asset: string; balance: string }> = await query;
  return Object.fromEntries(rows.map((r) => [r.asset, BigInt(r.balance)]));
}
