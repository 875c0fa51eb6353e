import { validationError } from '../../../lib/errors';
import { inTransaction } from '../../../db/errors';
import type { Db } from '../../../db/knex';
import type { PaymentInitiationStatus } from '../enums';
import type { TemporalDeps } from '../../../lib/temporal';
import { startInitiationWorkflow } from './initiation-workflow';
import { addInitiationAdjustment, getPaymentInitiation, type PaymentInitiation } from './initiations';

/**
 * The client-driven transitions of a payment initiation:
 *   WAITING_FOR_VALIDATION --approve--> SCHEDULED_FOR_PROCESSING (then PROCESSING -> PROCESSED | FAILED on Temporal)
 *   WAITING_FOR_VALIDATION --reject--> REJECTED;   WAITING_FOR_VALIDATION --delete--> (gone)
 *   FAILED --retry--> SCHEDULED_FOR_PROCESSING (a new attempt, a new workflow, a new provider idempotency key)
 * Every other request is refused with 400 VALIDATION naming the current status. Each transition holds the row lock.
 */
async function transition(
  db: Db,
  id: string,
  from: PaymentInitiationStatus,
  action: string,
  apply: (trx: import('knex').Knex.Transaction, initiation: PaymentInitiation) => Promise<void>,
): Promise<PaymentInitiation> {
  return inTransaction(db, async (trx) => {
    const initiation = await getPaymentInitiation(trx, id, { lock: true });
    if (initiation.status !== from) {
      throw validationError(`cannot ${action} payment initiation ${id}: its status is ${initiation.status}, ${action} needs ${from}`);
    }
    await apply(trx, initiation);
    return initiation;
  });
}

/** Throws NOT_FOUND, VALIDATION (not waiting for validation), SERVICE_UNAVAILABLE. Returns the Temporal workflow id. */
export async function approvePaymentInitiation(deps: { db: Db; temporal: TemporalDeps }, id: string): Promise<string> {
  const initiation = await transition(deps.db, id, 'WAITING_FOR_VALIDATION', 'approve', (trx, pi) =>
    addInitiationAdjustment(trx, pi, 'SCHEDULED_FOR_PROCESSING', { attempts: pi.attempts + 1 }),
  );
  return startInitiationWorkflow(deps.db, deps.temporal, id, initiation.attempts + 1, initiation.connectorID);
}

/** Throws NOT_FOUND, VALIDATION (not FAILED), SERVICE_UNAVAILABLE. Returns the Temporal workflow id. */
export async function retryPaymentInitiation(deps: { db: Db; temporal: TemporalDeps }, id: string): Promise<string> {
  const initiation = await transition(deps.db, id, 'FAILED', 'retry', (trx, pi) =>
    addInitiationAdjustment(trx, pi, 'SCHEDULED_FOR_PROCESSING', { attempts: pi.attempts + 1 }),
  );
  return startInitiationWorkflow(deps.db, deps.temporal, id, initiation.attempts + 1, initiation.connectorID);
}

/** Throws NOT_FOUND, VALIDATION (not waiting for validation). */
export async function rejectPaymentInitiation(db: Db, id: string): Promise<void> {
  await transition(db, id, 'WAITING_FOR_VALIDATION', 'reject', (trx, pi) => addInitiationAdjustment(trx, pi, 'REJECTED'));
}

/** Op 6: only while WAITING_FOR_VALIDATION, as nothing was sent to the provider yet. Throws NOT_FOUND, VALIDATION. */
export async function deletePaymentInitiation(db: Db, id: string): Promise<void> {
  await transition(db, id, 'WAITING_FOR_VALIDATION', 'delete', async (trx) => {
    await trx('payments_initiations').where({ id }).delete();
  });
}
