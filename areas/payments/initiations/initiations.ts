import { notFound } from '../../../lib/errors';
import type { Executor } from '../../../db/knex';
import { keysetPage, type Page, type PageRequest } from '../../../db/pagination';
import { providerLabel, type PaymentInitiationStatus } from '../enums';
import { emitPaymentsEvents } from '../events';
import { stringifyJson } from '../../../lib/json';
import { compilePaymentsQuery, INITIATIONS_TABLE } from '../payments/payments-query';

export interface PaymentInitiationAdjustment {
  id: string;
  status: string;
  createdAt: Date;
  error?: string;
  metadata: Record<string, string>;
}
export interface PaymentInitiation {
  id: string;
  connectorID: string;
  provider: string;
  reference: string;
  createdAt: Date;
  scheduledAt: Date;
  description: string;
  type: string;
  amount: bigint;
  asset: string;
  status: string;
  sourceAccountID?: string;
  destinationAccountID: string;
  error?: string;
  metadata: Record<string, string>;
  attempts: number;
}

const SELECT = (db: Executor) =>
  db('payments_initiations as i').join('payments_connectors as c', 'c.id', 'i.connector_id').select('i.*', 'c.provider');

export const presentInitiation = (r: any): PaymentInitiation => ({
  id: r.id,
  connectorID: r.connector_id,
  provider: providerLabel(r.provider),
  reference: r.reference,
  createdAt: r.created_at,
  // Formance's V3PaymentInitiation always has one: an initiation without a schedule is due when it is created.
  scheduledAt: r.scheduled_at ?? r.created_at,
  description: r.description,
  type: r.type,
  amount: BigInt(r.amount),
  asset: r.asset,
  status: r.status,
  ...(r.source_account_id ? { sourceAccountID: r.source_account_id } : {}),
  destinationAccountID: r.destination_account_id,
  ...(r.error ? { error: r.error } : {}),
  metadata: r.metadata ?? {},
  attempts: r.attempts,
});

/** Throws NOT_FOUND. `lock` takes the row lock every state transition holds, so transitions are serialised. */
export async function getPaymentInitiation(db: Executor, id: string, options: { lock?: boolean } = {}): Promise<PaymentInitiation> {
  const query = SELECT(db).where('i.id', id);
  if (options.lock) query.forUpdate('i');
  const row = await query.first();
  if (!row) throw notFound(`payment initiation ${id} not found`);
  return presentInitiation(row);
}

export async function getPaymentInitiationDetails(db: Executor, id: string) {
  const initiation = await getPaymentInitiation(db, id);
  const adjustments = await db('payments_initiation_adjustments').where({ payment_initiation_id: id }).orderBy('seq', 'desc');
  const payments = await db('payments_initiation_payments').where({ payment_initiation_id: id }).orderBy('payment_id').pluck('payment_id');
  return {
    ...initiation,
    adjustments: adjustments.map((a: any): PaymentInitiationAdjustment => ({
      id: a.id,
      status: a.status,
      createdAt: a.created_at,
      ...(a.error ? { error: a.error } : {}),
      metadata: a.metadata ?? {},
    })),
    relatedPaymentIDs: payments,
  };
}

/** Newest first, filtered by Formance's `query` (the payments filter language over initiation fields). Throws VALIDATION. */
export async function listPaymentInitiations(db: Executor, filters: { query?: string }, page: PageRequest): Promise<Page<PaymentInitiation>> {
  const select = SELECT(db);
  const condition = filters.query !== undefined ? compilePaymentsQuery(filters.query, INITIATIONS_TABLE) : undefined;
  if (condition) select.whereRaw(condition.sql, condition.bindings as any[]);
  const rows = await keysetPage<any>(select, ['i.created_at', 'i.id'], 'desc', page);
  return { ...rows, items: rows.items.map(presentInitiation) };
}

export const initiationKey = (i: PaymentInitiation): unknown[] => [i.createdAt.toISOString(), i.id];

export async function emitSavedInitiation(trx: Executor, initiation: PaymentInitiation): Promise<void> {
  const { attempts: _attempts, ...payload } = initiation;
  await emitPaymentsEvents(trx, [{ type: 'SAVED_PAYMENT_INITIATION', payload }]);
}

/** Appends an adjustment and moves the initiation's status; the caller holds the row lock. */
export async function addInitiationAdjustment(
  trx: Executor,
  initiation: PaymentInitiation,
  status: PaymentInitiationStatus,
  changes: { error?: string; attempts?: number; amount?: bigint; metadata?: Record<string, string> } = {},
): Promise<void> {
  // A reversal's adjustments carry the reversal's amount and metadata; the others the initiation's amount.
  const [adjustment] = await trx('payments_initiation_adjustments')
    .insert({
      payment_initiation_id: initiation.id,
      status,
      error: changes.error ?? null,
      amount: changes.amount?.toString() ?? null,
      metadata: stringifyJson(changes.metadata ?? {}),
    })
    .returning('*');
  await trx('payments_initiations')
    .where({ id: initiation.id })
    .update({ status, error: changes.error ?? null, ...(changes.attempts !== undefined ? { attempts: changes.attempts } : {}) });
  await emitPaymentsEvents(trx, [
    {
      type: 'SAVED_PAYMENT_INITIATION_ADJUSTMENT',
      payload: {
        id: adjustment.id,
        paymentInitiationID: initiation.id,
        createdAt: adjustment.created_at,
        status,
        amount: changes.amount ?? initiation.amount,
        asset: initiation.asset,
        ...(changes.error ? { error: changes.error } : {}),
        metadata: changes.metadata ?? {},
      },
    },
  ]);
}
