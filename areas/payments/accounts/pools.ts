import { randomUUID } from 'node:crypto';
import { conflict, notFound, validationError } from '../../../lib/errors';
import { inTransaction } from '../../../db/errors';
import { withIdempotencyKey } from '../../../db/idempotency';
import type { Db, Executor } from '../../../db/knex';
import { keysetPage, type Page, type PageRequest } from '../../../db/pagination';
import { stringifyJson } from '../../../lib/json';
import { emitPaymentsEvents } from '../events';
import { isUuid } from '../ids';
import { ACCOUNTS_TABLE, compilePaymentsQuery } from '../payments/payments-query';

export type PoolQuery = Record<string, unknown>;
/** A STATIC pool lists its accounts; a DYNAMIC one (Formance v3) holds the INTERNAL accounts its `query` matches when read. */
export interface Pool {
  id: string;
  name: string;
  createdAt: Date;
  type: 'STATIC' | 'DYNAMIC';
  query?: PoolQuery;
  poolAccounts: string[];
}

/** Compiles a dynamic pool's query (the v3 account list's filter language). Throws VALIDATION naming `where`. */
function compilePoolQuery(query: PoolQuery, where: string) {
  try {
    return compilePaymentsQuery(stringifyJson(query), ACCOUNTS_TABLE);
  } catch (error) {
    throw validationError(`${where}: ${(error as Error).message}`);
  }
}

async function matchingAccounts(db: Executor, query: PoolQuery): Promise<string[]> {
  const select = db('payments_accounts as a').where('a.type', 'INTERNAL').orderBy('a.id').select('a.id');
  const condition = compilePoolQuery(query, 'pool query');
  if (condition) select.whereRaw(condition.sql, condition.bindings as any[]);
  return (await select).map((r: { id: string }) => r.id);
}

/** A pool groups INTERNAL accounts (the platform's own money at providers); each id must exist. Throws VALIDATION. */
async function assertPoolAccounts(trx: Executor, ids: string[], where: string): Promise<void> {
  const rows = ids.length ? await trx('payments_accounts').whereIn('id', ids).select('id', 'type') : [];
  for (const id of ids) {
    const row = rows.find((r: any) => r.id === id);
    if (!row) throw validationError(`${where}: account ${id} does not exist`);
    if (row.type !== 'INTERNAL') throw validationError(`${where}: account ${id} is ${row.type}; a pool holds INTERNAL accounts only`);
  }
}

async function present(db: Executor, rows: any[]): Promise<Pool[]> {
  const links = rows.length
    ? await db('payments_pool_accounts')
        .whereIn(
          'pool_id',
          rows.map((r) => r.id),
        )
        .orderBy('account_id')
    : [];
  return Promise.all(
    rows.map(async (r): Promise<Pool> =>
      r.query
        ? { id: r.id, name: r.name, createdAt: r.created_at, type: 'DYNAMIC', query: r.query, poolAccounts: await matchingAccounts(db, r.query) }
        : {
            id: r.id,
            name: r.name,
            createdAt: r.created_at,
            type: 'STATIC',
            poolAccounts: links.filter((l: any) => l.pool_id === r.id).map((l: any) => l.account_id),
          },
    ),
  );
}

async function emitSavedPool(trx: Executor, id: string): Promise<void> {
  const pool = await getPool(trx, id);
  await emitPaymentsEvents(trx, [
    { type: 'SAVED_POOL', payload: { id: pool.id, name: pool.name, createdAt: pool.createdAt, type: pool.type, accountIDs: pool.poolAccounts } },
  ]);
}

/**
 * Op 5: a static pool of `accountIDs`, or (Formance v3) a dynamic one with a `query`, not both. Throws VALIDATION
 * (unknown or EXTERNAL account, malformed query), CONFLICT (name taken).
 */
export async function createPool(
  db: Db,
  input: { name: string; accountIDs?: string[]; query?: PoolQuery },
  options: { idempotencyKey?: string } = {},
): Promise<string> {
  return inTransaction(db, async (trx) => {
    const { value } = await withIdempotencyKey(trx, { scope: 'payments.pools', key: options.idempotencyKey, request: input }, async () => {
      const accountIDs = [...new Set(input.accountIDs ?? [])];
      if (input.query !== undefined && accountIDs.length)
        throw validationError('body: a pool has either accountIDs (static) or a query (dynamic), not both');
      if (input.query !== undefined) compilePoolQuery(input.query, 'body.query');
      await assertPoolAccounts(trx, accountIDs, 'body.accountIDs');
      const id = randomUUID();
      const query = input.query === undefined ? null : stringifyJson(input.query);
      const inserted = await trx('payments_pools').insert({ id, name: input.name, query }).onConflict('name').ignore().returning('id');
      if (inserted.length === 0) throw conflict(`a pool named "${input.name}" already exists`);
      if (accountIDs.length) await trx('payments_pool_accounts').insert(accountIDs.map((a) => ({ pool_id: id, account_id: a })));
      await emitSavedPool(trx, id);
      return id;
    });
    return value;
  });
}

/** Throws NOT_FOUND. */
export async function getPool(db: Executor, id: string): Promise<Pool> {
  const row = isUuid(id) ? await db('payments_pools').where({ id }).first() : undefined;
  if (!row) throw notFound(`pool ${id} not found`);
  return (await present(db, [row]))[0];
}

export async function listPools(db: Executor, page: PageRequest): Promise<Page<Pool>> {
  const rows = await keysetPage<any>(db('payments_pools').select('*'), ['created_at', 'id'], 'desc', page);
  return { ...rows, items: await present(db, rows.items) };
}

export const poolKey = (p: Pool): unknown[] => [p.createdAt.toISOString(), p.id];

/**
 * One conditional DELETE decides: of concurrent deletes of a pool exactly one removes the row and emits DELETED_POOL,
 * the others find nothing and are NOT_FOUND (a read then a delete answered 204 to each of them). Throws NOT_FOUND.
 */
export async function deletePool(db: Db, id: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    const [deleted] = isUuid(id) ? await trx('payments_pools').where({ id }).delete().returning(['created_at']) : [];
    if (!deleted) throw notFound(`pool ${id} not found`);
    await emitPaymentsEvents(trx, [{ type: 'DELETED_POOL', payload: { id, createdAt: deleted.created_at } }]);
  });
}

/** Adds (idempotent) or removes an account. Throws NOT_FOUND (pool, or account not in the pool), VALIDATION. */
export async function changePoolAccount(db: Db, id: string, accountID: string, change: 'add' | 'remove'): Promise<void> {
  await inTransaction(db, async (trx) => {
    const pool = await getPool(trx, id);
    if (pool.type === 'DYNAMIC') throw validationError(`pool ${id} is dynamic: its accounts are those its query matches`);
    await trx('payments_pools').where({ id }).forUpdate().first();
    if (change === 'add') {
      await assertPoolAccounts(trx, [accountID], 'path.accountID');
      await trx('payments_pool_accounts').insert({ pool_id: id, account_id: accountID }).onConflict(['pool_id', 'account_id']).ignore();
    } else {
      const removed = await trx('payments_pool_accounts').where({ pool_id: id, account_id: accountID }).delete();
      if (removed === 0) throw notFound(`account ${accountID} is not in pool ${id}`);
    }
    await emitSavedPool(trx, id);
  });
}

/** Replaces a dynamic pool's query. Throws NOT_FOUND, VALIDATION (static pool, malformed query). */
export async function updatePoolQuery(db: Db, id: string, query: PoolQuery): Promise<void> {
  await inTransaction(db, async (trx) => {
    const pool = await getPool(trx, id);
    if (pool.type === 'STATIC') throw validationError(`pool ${id} is static: its accounts are added and removed one by one`);
    compilePoolQuery(query, 'body.query');
    await trx('payments_pools')
      .where({ id })
      .update({ query: stringifyJson(query) });
    await emitSavedPool(trx, id);
  });
}

/**
 * The sum of the last fetched balances of the pool's accounts, per asset, with the accounts that hold it
 * (`relatedAccounts`). Throws NOT_FOUND.
 */
export async function getPoolBalances(db: Executor, id: string): Promise<Array<{ asset: string; amount: bigint; relatedAccounts: string[] }>> {
  const pool = await getPool(db, id);
  const rows =
    pool.poolAccounts.length === 0
      ? []
      : await db('payments_balances as b')
          .whereIn('b.account_id', pool.poolAccounts)
          .groupBy('b.asset')
          .orderBy('b.asset')
          .select('b.asset', db.raw('sum(b.balance)::text AS amount'), db.raw('array_agg(b.account_id ORDER BY b.account_id) AS related'));
  return rows.map((r: any) => ({ asset: r.asset, amount: BigInt(r.amount), relatedAccounts: r.related }));
}
