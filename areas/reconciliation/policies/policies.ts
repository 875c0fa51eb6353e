import { randomUUID } from 'node:crypto';
import { inTransaction } from '../../../db/errors';
import { withIdempotencyKey } from '../../../db/idempotency';
import type { Db, Executor } from '../../../db/knex';
import { emitEvents } from '../../../db/outbox';
import { keysetPage, type Page, type PageRequest } from '../../../db/pagination';
import { ApiError, isApiError, notFound, validationError } from '../../../lib/errors';
import { stringifyJson } from '../../../lib/json';
import { assertAccountQuery, getLedger } from '../../ledger';
import { getPool } from '../../payments';
import { parseListFilter } from './list-filter';

/** Formance's reconciliation policy: which ledger accounts (a ledger and its account filter) mirror which pool. */
export interface Policy {
  id: string;
  name: string;
  ledgerName: string;
  /** Formance's account filter as JSON (`$match`, `$and`, ...; ACCOUNT_FIELDS of the ledger); `{}` selects every account. */
  ledgerQuery: Record<string, unknown>;
  paymentsPoolID: string;
  createdAt: Date;
}

export interface PolicyInput {
  name: string;
  ledgerName: string;
  ledgerQuery: Record<string, unknown>;
  paymentsPoolID: string;
}

interface PolicyRow {
  id: string;
  name: string;
  ledger_name: string;
  ledger_query: Record<string, unknown>;
  payments_pool_id: string;
  created_at: Date;
}

const present = (row: PolicyRow): Policy => ({
  id: row.id,
  name: row.name,
  ledgerName: row.ledger_name,
  ledgerQuery: row.ledger_query,
  paymentsPoolID: row.payments_pool_id,
  createdAt: row.created_at,
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The filter text the ledger compiles, or undefined for `{}` (every account). */
export function ledgerQueryText(query: Record<string, unknown>): string | undefined {
  return Object.keys(query).length === 0 ? undefined : stringifyJson(query);
}

/** Rewrites the ledger's `query: ...` message so it names the field of this API that held the filter. */
function checkLedgerQuery(query: Record<string, unknown>, field: string): void {
  const text = ledgerQueryText(query);
  if (text === undefined) return;
  try {
    assertAccountQuery(text);
  } catch (error) {
    if (isApiError(error) && error.code === 'VALIDATION') throw validationError(error.message.replace(/^query/, field));
    throw error;
  }
}

/** The same error with a message naming `field`, for a reference this API checks against another area. */
async function referenced<T>(read: Promise<T>, field: string): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (isApiError(error) && (error.code === 'LEDGER_NOT_FOUND' || error.code === 'NOT_FOUND')) throw validationError(`${field}: ${error.message}`);
    throw error;
  }
}

/**
 * Creates a policy after checking what it names: the ledger exists, the filter compiles as the ledger's account
 * filter, the pool exists. Emits SAVED_POLICY. Throws VALIDATION naming the field.
 */
export async function createPolicy(db: Db, input: PolicyInput, options: { idempotencyKey?: string } = {}): Promise<Policy> {
  checkLedgerQuery(input.ledgerQuery, 'body.ledgerQuery');
  await referenced(getLedger(db, input.ledgerName), 'body.ledgerName');
  await referenced(getPool(db, input.paymentsPoolID), 'body.paymentsPoolID');
  const id = await inTransaction(
    db,
    async (trx) =>
      (
        await withIdempotencyKey(trx, { scope: 'reconciliation.policies', key: options.idempotencyKey, request: input }, async () => {
          const [row] = (await trx('reconciliation_policies')
            // A millisecond date, as the cursor carries it: a microsecond one would fall between two cursor keys.
            .insert({
              id: randomUUID(),
              created_at: new Date(),
              name: input.name,
              ledger_name: input.ledgerName,
              ledger_query: stringifyJson(input.ledgerQuery),
              payments_pool_id: input.paymentsPoolID,
            })
            .returning('*')) as PolicyRow[];
          await emitEvents(trx, [{ app: 'reconciliation', type: 'SAVED_POLICY', payload: present(row) }]);
          return row.id;
        })
      ).value,
  );
  // A replay answers the policy its key created (deleted since: 404, as a read of it would).
  return getPolicy(db, id);
}

/** Throws NOT_FOUND (also for an id that is not a UUID: no policy has one). */
export async function getPolicy(db: Executor, id: string): Promise<Policy> {
  const row = UUID.test(id) ? ((await db('reconciliation_policies').where({ id }).first()) as PolicyRow | undefined) : undefined;
  if (!row) throw notFound(`policy ${id} not found`);
  return present(row);
}

export const policyKey = (p: Policy): unknown[] => [p.createdAt.toISOString(), p.id];

const POLICY_FILTERS = { id: 'id', name: 'name', ledgerName: 'ledger_name', paymentsPoolID: 'payments_pool_id' };

/** Newest first; `query` is Formance's list filter (list-filter.ts) on id, name, ledgerName, paymentsPoolID. Throws VALIDATION. */
export async function listPolicies(db: Executor, query: string | undefined, page: PageRequest): Promise<Page<Policy>> {
  const where = parseListFilter(query, POLICY_FILTERS);
  if (where.id !== undefined && !UUID.test(where.id)) return { items: [], hasNext: false, hasPrevious: false };
  const result = await keysetPage<PolicyRow>(db('reconciliation_policies').where(where).select('*'), ['created_at', 'id'], 'desc', page);
  return { ...result, items: result.items.map(present) };
}

/**
 * One conditional delete: of concurrent deletes exactly one succeeds and emits DELETED_POLICY. The policy's
 * reconciliations stay readable. Throws NOT_FOUND.
 */
export async function deletePolicy(db: Db, id: string): Promise<void> {
  if (!UUID.test(id)) throw notFound(`policy ${id} not found`);
  await inTransaction(db, async (trx) => {
    const deleted = (await trx('reconciliation_policies').where({ id }).delete().returning('*')) as PolicyRow[];
    if (deleted.length === 0) throw new ApiError('NOT_FOUND', `policy ${id} not found`);
    await emitEvents(trx, [{ app: 'reconciliation', type: 'DELETED_POLICY', payload: { id, name: deleted[0].name } }]);
  });
}
