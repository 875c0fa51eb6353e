import { inTransaction } from '../../../db/errors';
import type { Db, Executor } from '../../../db/knex';
import { notFound } from '../../../lib/errors';
import { getAccount } from '../accounts/accounts';
import { getConnectorRow } from '../connectors/connectors';
import { emitPaymentsEvents } from '../events';
import { addInitiationAdjustment, getPaymentInitiation } from './initiations';
import { type ProviderPayment } from '../payments/payments';
import { upsertPayment } from '../payments/payments-upsert';

/**
 * The worker-side steps of a reversal. Each acts only while the reversal is PROCESSING, so a retried activity or a
 * late failure never records it twice or overwrites its outcome.
 */
async function reversalRow(db: Executor, id: string, lock = false) {
  const query = db('payments_initiation_reversals').where({ id });
  if (lock) query.forUpdate();
  const row = await query.first();
  if (!row) throw notFound(`payment initiation reversal ${id} not found`);
  return row;
}

/** What the connector needs: the reversal, its initiation and connector, the provider payment it reverses and the accounts. */
export async function loadReversalForConnector(db: Db, id: string) {
  const reversal = await reversalRow(db, id);
  const pi = await getPaymentInitiation(db, reversal.payment_initiation_id);
  const connector = await getConnectorRow(db, pi.connectorID);
  // The payment the execution produced: the initiation's related payment that no reversal produced.
  const payment = await db('payments_initiation_payments as ip')
    .join('payments_payments as p', 'p.id', 'ip.payment_id')
    .where('ip.payment_initiation_id', pi.id)
    .whereNotExists(db('payments_initiation_reversals as r').whereRaw('r.payment_id = p.id'))
    .orderBy('p.created_at')
    .first('p.reference');
  if (!payment) throw notFound(`payment initiation ${pi.id} has no payment to reverse`);
  const destination = await getAccount(db, pi.destinationAccountID);
  const source = pi.sourceAccountID ? await getAccount(db, pi.sourceAccountID) : undefined;
  return {
    connector,
    request: {
      idempotencyKey: id,
      type: pi.type as 'TRANSFER' | 'PAYOUT',
      reference: reversal.reference as string,
      paymentReference: payment.reference as string,
      amount: BigInt(reversal.amount),
      asset: reversal.asset as string,
      sourceAccountReference: source?.reference,
      destinationAccountReference: destination.reference,
      description: reversal.description as string,
      metadata: (reversal.metadata ?? {}) as Record<string, string>,
    },
  };
}

/** Records the provider's reversal payment, links it to the initiation and marks the reversal PROCESSED (REVERSED). */
export async function recordReversalPayment(db: Db, id: string, payment: ProviderPayment): Promise<string> {
  return inTransaction(db, async (trx) => {
    const reversal = await reversalRow(trx, id, true);
    const pi = await getPaymentInitiation(trx, reversal.payment_initiation_id, { lock: true });
    const { id: paymentID } = await upsertPayment(trx, pi.connectorID, payment);
    if (reversal.status !== 'PROCESSING') return reversal.payment_id ?? paymentID;
    const linked = await trx('payments_initiation_payments')
      .insert({ payment_initiation_id: pi.id, payment_id: paymentID })
      .onConflict()
      .ignore()
      .returning('payment_id');
    if (linked.length)
      await emitPaymentsEvents(trx, [{ type: 'SAVED_PAYMENT_INITIATION_RELATED_PAYMENT', payload: { paymentInitiationID: pi.id, paymentID } }]);
    await trx('payments_initiation_reversals').where({ id }).update({ status: 'PROCESSED', payment_id: paymentID });
    await addInitiationAdjustment(trx, pi, 'REVERSED', { amount: BigInt(reversal.amount), metadata: reversal.metadata ?? {} });
    return paymentID;
  });
}

/** Marks a PROCESSING reversal FAILED and the initiation REVERSE_FAILED with the cause; its amount is free again. */
export async function failReversal(db: Db, id: string, error: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    const reversal = await reversalRow(trx, id, true);
    if (reversal.status !== 'PROCESSING') return;
    const pi = await getPaymentInitiation(trx, reversal.payment_initiation_id, { lock: true });
    await trx('payments_initiation_reversals').where({ id }).update({ status: 'FAILED', error });
    await addInitiationAdjustment(trx, pi, 'REVERSE_FAILED', { error, amount: BigInt(reversal.amount), metadata: reversal.metadata ?? {} });
  });
}
