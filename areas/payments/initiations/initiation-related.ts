import type { Executor } from '../../../db/knex';
import { keysetPage, type Page, type PageRequest } from '../../../db/pagination';
import { getPaymentInitiation } from './initiations';
import { type Payment, paymentsQuery, presentPayments } from '../payments/payments';

/** Formance's V3PaymentInitiationAdjustment: one status change, with the initiation's amount and asset. */
export interface InitiationAdjustment {
  id: string;
  status: string;
  createdAt: Date;
  amount: bigint;
  asset: string;
  error?: string;
  metadata: Record<string, string>;
  seq: string;
}

/** An initiation's status changes, newest first. Throws NOT_FOUND. */
export async function listInitiationAdjustments(db: Executor, id: string, page: PageRequest): Promise<Page<InitiationAdjustment>> {
  const initiation = await getPaymentInitiation(db, id);
  const rows = await keysetPage<any>(db('payments_initiation_adjustments').where({ payment_initiation_id: id }).select('*'), ['seq'], 'desc', page);
  return {
    ...rows,
    items: rows.items.map((a) => ({
      id: a.id,
      status: a.status,
      createdAt: a.created_at,
      amount: a.amount !== null ? BigInt(a.amount) : initiation.amount,
      asset: initiation.asset,
      ...(a.error ? { error: a.error } : {}),
      metadata: a.metadata ?? {},
      seq: String(a.seq),
    })),
  };
}
export const initiationAdjustmentKey = (a: InitiationAdjustment): unknown[] => [a.seq];
export const presentInitiationAdjustment = ({ seq: _seq, ...a }: InitiationAdjustment) => a;

/** The payments an initiation's executions produced (V3Payment), by id. Throws NOT_FOUND. */
export async function listInitiationPayments(db: Executor, id: string, page: PageRequest): Promise<Page<Payment>> {
  await getPaymentInitiation(db, id);
  const query = paymentsQuery(db).join('payments_initiation_payments as ip', 'ip.payment_id', 'p.id').where('ip.payment_initiation_id', id);
  const rows = await keysetPage<any>(query, ['p.id'], 'asc', page);
  return { ...rows, items: await presentPayments(db, rows.items, { v3: true }) };
}
export const initiationPaymentKey = (p: Payment): unknown[] => [p.id];
