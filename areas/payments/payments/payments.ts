import { notFound } from '../../../lib/errors';
import { inTransaction } from '../../../db/errors';
import type { Db, Executor } from '../../../db/knex';
import { emitPaymentsEvents } from '../events';
import { PAYMENT_SHAPES } from './payment-shapes';
import { stringifyJson } from '../../../lib/json';

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

export interface PaymentAdjustment {
  id?: string;
  reference: string;
  createdAt: Date;
  status: string;
  amount: bigint;
  raw: unknown;
}
export interface Payment {
  id: string;
  reference: string;
  sourceAccountID: string | null;
  destinationAccountID: string | null;
  connectorID: string;
  provider: string;
  type: string;
  status: string;
  initialAmount: bigint;
  amount: bigint;
  scheme: string;
  asset: string;
  createdAt: Date;
  raw: unknown;
  adjustments: PaymentAdjustment[];
  metadata: Record<string, string>;
}

/**
 * Rows of payments_payments (joined with the connector's provider) in the spec's Payment shape (payment-shapes.ts),
 * adjustments newest first. `v3` is Formance's V3Payment: adjustments carry their id, and a payment without source or destination account
 * has none (the spec's shape writes ""). `withoutAdjustments` reads none (events carry no adjustments).
 */
export async function presentPayments(db: Executor, rows: any[], options: { v3?: boolean; withoutAdjustments?: boolean } = {}): Promise<Payment[]> {
  const adjustments =
    rows.length && !options.withoutAdjustments
      ? await db('payments_adjustments')
          .whereIn(
            'payment_id',
            rows.map((r) => r.id),
          )
          .orderBy('seq', 'desc')
      : [];
  // Grouped once: a page of 1000 payments would otherwise scan every adjustment for every payment.
  const byPayment = new Map<string, any[]>();
  for (const a of adjustments) {
    const list = byPayment.get(a.payment_id);
    if (list) list.push(a);
    else byPayment.set(a.payment_id, [a]);
  }
  const shape = PAYMENT_SHAPES[options.v3 ? 'v3' : 'v1'];
  return rows.map((r) => shape.view({ ...r, adjustments: byPayment.get(r.id) ?? [] }) as Payment);
}

export const paymentsQuery = (db: Executor) =>
  db('payments_payments as p').join('payments_connectors as c', 'c.id', 'p.connector_id').select('p.*', 'c.provider');

/** Throws NOT_FOUND. `v3`: Formance's V3Payment (see presentPayments). */
export async function getPayment(db: Executor, id: string, options: { v3?: boolean } = {}): Promise<Payment> {
  const row = await paymentsQuery(db).where('p.id', id).first();
  if (!row) throw notFound(`payment ${id} not found`);
  return (await presentPayments(db, [row], options))[0];
}

/** SAVED_PAYMENT events of the given payments, in that order: the payment as the API shows it, without adjustments. */
export async function emitSavedPayments(trx: Executor, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const presented = await presentPayments(trx, await paymentsQuery(trx).whereIn('p.id', ids), { withoutAdjustments: true });
  const byId = new Map(presented.map((p) => [p.id, p]));
  await emitPaymentsEvents(
    trx,
    ids.map((id) => {
      const { raw, adjustments: _adjustments, ...payment } = byId.get(id)!;
      return { type: 'SAVED_PAYMENT', payload: { ...payment, rawData: raw } };
    }),
  );
}

/** Merges metadata into a payment's metadata. Throws NOT_FOUND. */
export async function updatePaymentMetadata(db: Db, id: string, metadata: Record<string, string>): Promise<void> {
  await inTransaction(db, async (trx) => {
    const updated = await trx('payments_payments')
      .where({ id })
      .update({ metadata: trx.raw('metadata || ?::jsonb', [stringifyJson(metadata)]) });
    if (updated === 0) throw notFound(`payment ${id} not found`);
    await emitSavedPayments(trx, [id]);
  });
}
