import { randomUUID } from 'node:crypto';
import { inTransaction } from '../../../db/errors';
import { withIdempotencyKey } from '../../../db/idempotency';
import type { Db, Executor } from '../../../db/knex';
import { emitEvents } from '../../../db/outbox';
import { keysetPage, type Page, type PageRequest } from '../../../db/pagination';
import { isApiError, notFound, validationError } from '../../../lib/errors';
import { stringifyJson } from '../../../lib/json';
import { aggregateBalancesAt } from '../../ledger';
import { getPoolBalancesAt } from '../../payments';
import { computeDrift } from './drift';
import { parseListFilter } from './list-filter';
import { getPolicy, ledgerQueryText } from './policies';

/** Formance's reconciliation: a policy's two sides at two instants, and what was concluded. */
export interface Reconciliation {
  id: string;
  policyID: string;
  createdAt: Date;
  reconciledAtLedger: Date;
  reconciledAtPayments: Date;
  status: 'OK' | 'NOT_OK';
  ledgerBalances: Record<string, bigint>;
  paymentsBalances: Record<string, bigint>;
  driftBalances: Record<string, bigint>;
  /** Why it is NOT_OK; "" when OK (Formance always sends the field). */
  error: string;
}

interface ResultRow {
  id: string;
  policy_id: string;
  created_at: Date;
  reconciled_at_ledger: Date;
  reconciled_at_payments: Date;
  status: 'OK' | 'NOT_OK';
  ledger_balances: Record<string, number | bigint>;
  payments_balances: Record<string, number | bigint>;
  drift_balances: Record<string, number | bigint>;
  error: string | null;
}

// jsonb gives numbers back as parsed by lib/json.ts: a number when it is safe, a BigInt beyond.
const amounts = (map: Record<string, number | bigint>): Record<string, bigint> =>
  Object.fromEntries(Object.entries(map).map(([k, v]) => [k, BigInt(v)]));

const present = (row: ResultRow): Reconciliation => ({
  id: row.id,
  policyID: row.policy_id,
  createdAt: row.created_at,
  reconciledAtLedger: row.reconciled_at_ledger,
  reconciledAtPayments: row.reconciled_at_payments,
  status: row.status,
  ledgerBalances: amounts(row.ledger_balances),
  paymentsBalances: amounts(row.payments_balances),
  driftBalances: amounts(row.drift_balances),
  error: row.error ?? '',
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A policy's ledger or pool deleted since its creation: the request cannot be served as the policy says. */
async function side<T>(read: Promise<T>, what: string): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (isApiError(error) && (error.code === 'LEDGER_NOT_FOUND' || error.code === 'NOT_FOUND'))
      throw validationError(`policy ${what}: ${error.message}`);
    throw error;
  }
}

/**
 * Reconciles a policy: the ledger's aggregated balances of the policy's accounts as they were at `reconciledAtLedger`
 * (effective dates), the pool's balances as last fetched at `reconciledAtPayments`, both replayed exactly from history
 * (the ledger's and payments' point-in-time reads), then the drift (drift.ts). Both instants must be in the past:
 * a future one would give a result that later writes could still change. The result and its
 * COMPLETED_RECONCILIATION event are written in one transaction; with an idempotency key, a replay answers the first
 * result (409 for the key with another request).
 * Throws NOT_FOUND (policy), VALIDATION (a future instant; the policy's ledger or pool no longer exists).
 */
export async function reconcile(
  db: Db,
  policyID: string,
  input: { reconciledAtLedger: Date; reconciledAtPayments: Date },
  options: { idempotencyKey?: string } = {},
): Promise<Reconciliation> {
  const now = Date.now();
  if (input.reconciledAtLedger.getTime() > now) throw validationError('body.reconciledAtLedger: must be in the past');
  if (input.reconciledAtPayments.getTime() > now) throw validationError('body.reconciledAtPayments: must be in the past');
  const policy = await getPolicy(db, policyID);
  const [ledger, pool] = await Promise.all([
    side(
      aggregateBalancesAt(db, policy.ledgerName, { query: ledgerQueryText(policy.ledgerQuery) }, { pit: input.reconciledAtLedger }),
      `${policy.id} ledger`,
    ),
    side(getPoolBalancesAt(db, policy.paymentsPoolID, input.reconciledAtPayments), `${policy.id} pool`),
  ]);
  const outcome = computeDrift(ledger, Object.fromEntries(pool.map((b) => [b.asset, b.amount])));
  const reconciliation: Reconciliation = {
    id: randomUUID(),
    policyID: policy.id,
    createdAt: new Date(),
    reconciledAtLedger: input.reconciledAtLedger,
    reconciledAtPayments: input.reconciledAtPayments,
    ...outcome,
  };
  const request = { policyID, reconciledAtLedger: input.reconciledAtLedger, reconciledAtPayments: input.reconciledAtPayments };
  const { value: id, hit } = await inTransaction(db, async (trx) =>
    withIdempotencyKey(trx, { scope: 'reconciliation.reconciliations', key: options.idempotencyKey, request }, async () => {
      await trx('reconciliation_results').insert({
        id: reconciliation.id,
        policy_id: reconciliation.policyID,
        created_at: reconciliation.createdAt,
        reconciled_at_ledger: reconciliation.reconciledAtLedger,
        reconciled_at_payments: reconciliation.reconciledAtPayments,
        status: reconciliation.status,
        // knex's insert stringifies objects itself (JSON.stringify, which refuses BigInt): the exact text goes instead.
        ledger_balances: stringifyJson(reconciliation.ledgerBalances),
        payments_balances: stringifyJson(reconciliation.paymentsBalances),
        drift_balances: stringifyJson(reconciliation.driftBalances),
        error: reconciliation.error || null,
      });
      await emitEvents(trx, [
        {
          app: 'reconciliation',
          type: 'COMPLETED_RECONCILIATION',
          payload: { ...reconciliation, policyName: policy.name, ledgerName: policy.ledgerName, paymentsPoolID: policy.paymentsPoolID },
        },
      ]);
      return reconciliation.id;
    }),
  );
  // A replay answers the reconciliation its key stored (the balances just read are dropped).
  return hit ? getReconciliation(db, id) : reconciliation;
}

/** Throws NOT_FOUND (also for an id that is not a UUID). */
export async function getReconciliation(db: Executor, id: string): Promise<Reconciliation> {
  const row = UUID.test(id) ? ((await db('reconciliation_results').where({ id }).first()) as ResultRow | undefined) : undefined;
  if (!row) throw notFound(`reconciliation ${id} not found`);
  return present(row);
}

export const reconciliationKey = (r: Reconciliation): unknown[] => [r.createdAt.toISOString(), r.id];

const RECONCILIATION_FILTERS = { id: 'id', policyID: 'policy_id', status: 'status' };

/** Newest first; `query` is Formance's list filter (list-filter.ts) on id, policyID, status. Throws VALIDATION. */
export async function listReconciliations(db: Executor, query: string | undefined, page: PageRequest): Promise<Page<Reconciliation>> {
  const where = parseListFilter(query, RECONCILIATION_FILTERS);
  // A policy id or reconciliation id that is not a UUID matches nothing (the column is uuid, so it cannot be compared).
  if ((where.id !== undefined && !UUID.test(where.id)) || (where.policy_id !== undefined && !UUID.test(where.policy_id)))
    return { items: [], hasNext: false, hasPrevious: false };
  const result = await keysetPage<ResultRow>(db('reconciliation_results').where(where).select('*'), ['created_at', 'id'], 'desc', page);
  return { ...result, items: result.items.map(present) };
}
