import { notFound } from '../../lib/errors';
import { inTransaction } from '../../db/errors';
import type { Db, Executor } from '../../db/knex';
import { providerLabel } from './enums';
import { emitPaymentsEvents } from './events';
import { accountId, adjustmentId, paymentId } from './ids';
import { stringifyJson } from '../../lib/json';

/** A payment as a provider describes it; `reference` is the provider's own id, `updatedAt` the time of this state. */
export interface ProviderPayment {
  reference: string;
  createdAt: Date;
  updatedAt?: Date;
  type: string;
  status: string;
  scheme: string;
  asset: string;
  amount: bigint;
  initialAmount?: bigint;
  sourceAccountReference?: string;
  destinationAccountReference?: string;
  metadata: Record<string, string>;
  raw: unknown;
}

export interface PaymentAdjustment { id?: string; reference: string; createdAt: Date; status: string; amount: bigint; raw: unknown }
export interface Payment {
  id: string; reference: string; sourceAccountID: string | null; destinationAccountID: string | null; connectorID: string; provider: string;
  type: string; status: string; initialAmount: bigint; amount: bigint; scheme: string; asset: string; createdAt: Date;
  raw: unknown; adjustments: PaymentAdjustment[]; metadata: Record<string, string>;
}

/**
 * Rows of payments_payments (joined with the connector's provider) in the spec's Payment shape, adjustments newest
 * first. `v3` is Formance's V3Payment: adjustments carry their id, and a payment without source or destination account
 * has none (the spec's shape writes "").
 */
export async function presentPayments(db: Executor, rows: any[], options: { v3?: boolean } = {}): Promise<Payment[]> {
  const adjustments = rows.length ? await db('payments_adjustments').whereIn('payment_id', rows.map((r) => r.id)).orderBy('seq', 'desc') : [];
  // Grouped once: a page of 1000 payments would otherwise scan every adjustment for every payment.
  const byPayment = new Map<string, any[]>();
  for (const a of adjustments) {
    const list = byPayment.get(a.payment_id);
    if (list) list.push(a);
    else byPayment.set(a.payment_id, [a]);
  }
  return rows.map((r) => ({
    id: r.id,
    reference: r.reference,
    sourceAccountID: r.source_account_id ?? (options.v3 ? null : ''),
    destinationAccountID: r.destination_account_id ?? (options.v3 ? null : ''),
    connectorID: r.connector_id,
    provider: providerLabel(r.provider),
    type: r.type,
    status: r.status,
    initialAmount: BigInt(r.initial_amount),
    amount: BigInt(r.amount),
    scheme: r.scheme,
    asset: r.asset,
    createdAt: r.created_at,
    raw: r.raw,
    adjustments: (byPayment.get(r.id) ?? [])
      .map((a: any) => ({ ...(options.v3 ? { id: a.id } : {}), reference: a.reference, createdAt: a.created_at, status: a.status, amount: BigInt(a.amount), raw: a.raw })),
    metadata: r.metadata ?? {},
  }));
}

export const paymentsQuery = (db: Executor) =>
  db('payments_payments as p').join('payments_connectors as c', 'c.id', 'p.connector_id').select('p.*', 'c.provider');

/** Throws NOT_FOUND. `v3`: Formance's V3Payment (see presentPayments). */
export async function getPayment(db: Executor, id: string, options: { v3?: boolean } = {}): Promise<Payment> {
  const row = await paymentsQuery(db).where('p.id', id).first();
  if (!row) throw notFound(`payment ${id} not found`);
  return (await presentPayments(db, [row], options))[0];
}

async function emitSavedPayment(trx: Executor, id: string): Promise<void> {
  const { raw, adjustments: _adjustments, ...payment } = await getPayment(trx, id);
  await emitPaymentsEvents(trx, [{ type: 'SAVED_PAYMENT', payload: { ...payment, rawData: raw } }]);
}

/**
 * Upserts one fetched payment state: the payment row (status and amount are the latest state's) and one adjustment per
 * distinct state. Re-fetching the same state changes nothing and emits nothing. Returns the payment id and whether
 * anything changed.
 */
export async function upsertPayment(trx: Executor, connectorID: string, p: ProviderPayment): Promise<{ id: string; changed: boolean }> {
  const id = paymentId(connectorID, p.reference);
  const account = (reference?: string) => (reference ? accountId(connectorID, reference) : null);
  const { rows } = await trx.raw(
    `INSERT INTO payments_payments (id, connector_id, reference, type, status, scheme, asset, initial_amount, amount,
       source_account_id, destination_account_id, created_at, raw, metadata)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb)
     ON CONFLICT (id) DO UPDATE SET status = excluded.status, amount = excluded.amount, scheme = excluded.scheme,
       raw = excluded.raw, metadata = payments_payments.metadata || excluded.metadata
     WHERE (payments_payments.status, payments_payments.amount, payments_payments.scheme, payments_payments.raw)
       IS DISTINCT FROM (excluded.status, excluded.amount, excluded.scheme, excluded.raw)
       OR NOT payments_payments.metadata @> excluded.metadata
     RETURNING id`,
    [id, connectorID, p.reference, p.type, p.status, p.scheme, p.asset, (p.initialAmount ?? p.amount).toString(), p.amount.toString(),
      account(p.sourceAccountReference), account(p.destinationAccountReference), p.createdAt, stringifyJson(p.raw ?? {}), stringifyJson(p.metadata)],
  );
  const at = p.updatedAt ?? p.createdAt;
  const adjustment = await trx('payments_adjustments')
    .insert({ id: adjustmentId(id, p.reference, at, p.status), payment_id: id, reference: p.reference, created_at: at, status: p.status,
      amount: p.amount.toString(), raw: stringifyJson(p.raw ?? {}) })
    .onConflict('id').ignore().returning('id');
  const changed = rows.length > 0 || adjustment.length > 0;
  if (changed) await emitSavedPayment(trx, id);
  return { id, changed };
}

/** Merges metadata into a payment's metadata. Throws NOT_FOUND. */
export async function updatePaymentMetadata(db: Db, id: string, metadata: Record<string, string>): Promise<void> {
  await inTransaction(db, async (trx) => {
    const updated = await trx('payments_payments').where({ id }).update({ metadata: trx.raw('metadata || ?::jsonb', [stringifyJson(metadata)]) });
    if (updated === 0) throw notFound(`payment ${id} not found`);
    await emitSavedPayment(trx, id);
  });
}
