import { ApiError } from '../../../lib/errors';
import type { TemporalDeps } from '../../../lib/temporal';
import { inTransaction } from '../../../db/errors';
import type { Db } from '../../../db/knex';
import { startInitiationExecution } from '../engine';
import { addInitiationAdjustment, getPaymentInitiation } from './initiations';

/**
 * Starts the execution of one attempt, after the transaction that scheduled it committed (so the workflow always
 * finds its row). If Temporal cannot be reached the attempt is recorded as FAILED, which the client can retry, instead
 * of leaving it scheduled forever.
 */
export async function startInitiationWorkflow(db: Db, temporal: TemporalDeps, id: string, attempt: number, connectorID: string): Promise<string> {
  try {
    const pi = await getPaymentInitiation(db, id);
    const summary = `${pi.type} ${pi.amount} ${pi.asset} "${pi.reference}", attempt ${attempt}`;
    return await startInitiationExecution(temporal, { id, attempt, connectorID, summary });
  } catch (error) {
    await inTransaction(db, async (trx) => {
      const initiation = await getPaymentInitiation(trx, id, { lock: true });
      if (initiation.status === 'SCHEDULED_FOR_PROCESSING')
        await addInitiationAdjustment(trx, initiation, 'FAILED', { error: 'could not start the execution on Temporal' });
    });
    throw new ApiError('SERVICE_UNAVAILABLE', 'could not start the execution; the payment initiation is FAILED and can be retried', { cause: error });
  }
}
