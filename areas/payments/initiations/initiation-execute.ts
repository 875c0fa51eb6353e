import { inTransaction } from '../../../db/errors';
import type { Db } from '../../../db/knex';
import { getAccount } from '../accounts/accounts';
import { getConnectorRow } from '../connectors/connectors';
import { addInitiationAdjustment, getPaymentInitiation, type PaymentInitiation } from './initiations';
import { emitPaymentsEvents } from '../events';
import type { ProviderPayment } from '../payments/payments';
import { upsertPayment } from '../payments/payments-upsert';

/**
 * The worker-side steps of one execution attempt. Each checks that the initiation is still in the attempt it was
 * started for, so a late retry of an old attempt never overwrites a newer state.
 */
const current = (pi: PaymentInitiation, attempt: number, statuses: string[]) => pi.attempts === attempt && statuses.includes(pi.status);

export async function markInitiationProcessing(db: Db, id: string, attempt: number): Promise<void> {
  await inTransaction(db, async (trx) => {
    const pi = await getPaymentInitiation(trx, id, { lock: true });
    if (current(pi, attempt, ['SCHEDULED_FOR_PROCESSING'])) await addInitiationAdjustment(trx, pi, 'PROCESSING');
  });
}

/** What the connector needs: the initiation, its connector, and the provider references of its accounts. */
export async function loadInitiationForConnector(db: Db, id: string) {
  const pi = await getPaymentInitiation(db, id);
  const connector = await getConnectorRow(db, pi.connectorID);
  const destination = await getAccount(db, pi.destinationAccountID);
  const source = pi.sourceAccountID ? await getAccount(db, pi.sourceAccountID) : undefined;
  return { pi, connector, destinationReference: destination.reference, sourceReference: source?.reference };
}

/** Records the provider's payment, links it and marks the attempt PROCESSED. Returns the payment id. */
export async function recordInitiationPayment(db: Db, id: string, attempt: number, payment: ProviderPayment): Promise<string> {
  return inTransaction(db, async (trx) => {
    const pi = await getPaymentInitiation(trx, id, { lock: true });
    const { id: paymentID } = await upsertPayment(trx, pi.connectorID, payment);
    const linked = await trx('payments_initiation_payments')
      .insert({ payment_initiation_id: id, payment_id: paymentID })
      .onConflict()
      .ignore()
      .returning('payment_id');
    if (linked.length) {
      await emitPaymentsEvents(trx, [{ type: 'SAVED_PAYMENT_INITIATION_RELATED_PAYMENT', payload: { paymentInitiationID: id, paymentID } }]);
    }
    if (current(pi, attempt, ['PROCESSING', 'SCHEDULED_FOR_PROCESSING'])) await addInitiationAdjustment(trx, pi, 'PROCESSED');
    return paymentID;
  });
}

export async function failInitiation(db: Db, id: string, attempt: number, error: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    const pi = await getPaymentInitiation(trx, id, { lock: true });
    if (current(pi, attempt, ['PROCESSING', 'SCHEDULED_FOR_PROCESSING'])) await addInitiationAdjustment(trx, pi, 'FAILED', { error });
  });
}
