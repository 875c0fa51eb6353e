import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { ApiError } from '../../lib/errors';
import { SEARCH_ATTRIBUTES } from '../../lib/search-attributes';
import type { paymentInitiationExecute } from '../../workflows/payments/payment-initiation';
import { inTransaction } from '../../db/errors';
import type { Db } from '../../db/knex';
import { addInitiationAdjustment, getPaymentInitiation } from './initiations';

export interface TemporalDeps { client: Client; taskQueue: string }
export const initiationWorkflowId = (id: string, attempt: number): string => `payment-initiation-${id}-${attempt}`;

/**
 * Starts the execution of one attempt, after the transaction that scheduled it committed (so the workflow always
 * finds its row). The id is deterministic, so starting twice is harmless. If Temporal cannot be reached the attempt is
 * recorded as FAILED, which the client can retry, instead of leaving it scheduled forever.
 */
export async function startInitiationWorkflow(db: Db, temporal: TemporalDeps, id: string, attempt: number, connectorID: string): Promise<string> {
  const workflowId = initiationWorkflowId(id, attempt);
  try {
    await temporal.client.workflow.start<typeof paymentInitiationExecute>('paymentInitiationExecute', {
      taskQueue: temporal.taskQueue,
      workflowId,
      args: [{ paymentInitiationID: id, attempt }],
      typedSearchAttributes: [
        { key: SEARCH_ATTRIBUTES.PlatformArea, value: 'payments' },
        { key: SEARCH_ATTRIBUTES.ConnectorID, value: connectorID },
      ],
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return workflowId;
    await inTransaction(db, async (trx) => {
      const initiation = await getPaymentInitiation(trx, id, { lock: true });
      if (initiation.status === 'SCHEDULED_FOR_PROCESSING') await addInitiationAdjustment(trx, initiation, 'FAILED', { error: 'could not start the execution on Temporal' });
    });
    throw new ApiError('SERVICE_UNAVAILABLE', 'could not start the execution; the payment initiation is FAILED and can be retried', { cause: error });
  }
  return workflowId;
}
