import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { TemporalDeps } from '../../../lib/temporal';
import type {
  openBankingCompleteLink,
  openBankingDeleteConnection,
  openBankingDeletePsuConnector,
  paymentServiceUserForward,
} from '../../../workflows/payments/open-banking';
import { waitFor, type WaitedRun } from './tasks';
import { searchAttributes } from './workflow-ids';

const psuSummary = (psuID: string, connectorID: string) => `payment service user ${psuID} at connector ${connectorID}`;

/**
 * Registers a payment service user at a connector's provider and waits for it (Formance answers this one when done);
 * a forward under way is joined. Id `payment-service-user-<id>-forward-<connectorID>`.
 */
export async function runPaymentServiceUserForward(
  temporal: TemporalDeps,
  psuID: string,
  connectorID: string,
  timeoutMs: number,
): Promise<WaitedRun<void>> {
  const workflowId = `payment-service-user-${psuID}-forward-${connectorID}`;
  await temporal.client.workflow.start<typeof paymentServiceUserForward>('paymentServiceUserForward', {
    taskQueue: temporal.taskQueue,
    workflowId,
    args: [{ psuID, connectorID }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: searchAttributes(connectorID),
    staticSummary: `Forward ${psuSummary(psuID, connectorID)}`,
  });
  return waitFor<void>(temporal, workflowId, timeoutMs);
}

/**
 * Starts the completion of a link attempt after the end user's decision on the consent page (Formance's asynchronous
 * completion). One run per attempt, ever: a second start is refused (conflict policy FAIL, reuse policy
 * REJECT_DUPLICATE), so a decision is acted on once even if the database's record of it was lost to a failed commit.
 * @returns false when the attempt already has a run (another decision won).
 */
export async function startLinkCompletion(
  temporal: TemporalDeps,
  input: { attemptID: string; connectorID: string; decision: 'approve' | 'reject' },
): Promise<boolean> {
  try {
    await temporal.client.workflow.start<typeof openBankingCompleteLink>('openBankingCompleteLink', {
      taskQueue: temporal.taskQueue,
      workflowId: linkCompletionId(input.attemptID),
      args: [{ attemptID: input.attemptID, decision: input.decision }],
      workflowIdConflictPolicy: 'FAIL',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: searchAttributes(input.connectorID),
      staticSummary: `Complete link attempt ${input.attemptID} (${input.decision})`,
    });
    return true;
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw error;
  }
}

/** Waits up to `timeoutMs` for an attempt's completion, so the redirect usually lands after the connection exists. */
export const awaitLinkCompletion = (temporal: TemporalDeps, attemptID: string, timeoutMs: number): Promise<WaitedRun<void>> =>
  waitFor<void>(temporal, linkCompletionId(attemptID), timeoutMs);

const linkCompletionId = (attemptID: string) => `open-banking-link-attempt-${attemptID}`;

/** Starts the deletion of one bank connection (joining one under way). @returns the task (workflow) id. */
export async function startConnectionDelete(
  temporal: TemporalDeps,
  input: { psuID: string; connectorID: string; connectionID: string },
): Promise<string> {
  const workflowId = `payment-service-user-${input.psuID}-connection-${input.connectionID}-delete`;
  await temporal.client.workflow.start<typeof openBankingDeleteConnection>('openBankingDeleteConnection', {
    taskQueue: temporal.taskQueue,
    workflowId,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: searchAttributes(input.connectorID),
    staticSummary: `Delete connection ${input.connectionID} of ${psuSummary(input.psuID, input.connectorID)}`,
  });
  return workflowId;
}

/** Starts the removal of a payment service user from a connector (joining one under way). @returns the task id. */
export async function startPsuConnectorDelete(temporal: TemporalDeps, psuID: string, connectorID: string): Promise<string> {
  const workflowId = `payment-service-user-${psuID}-connector-${connectorID}-delete`;
  await temporal.client.workflow.start<typeof openBankingDeletePsuConnector>('openBankingDeletePsuConnector', {
    taskQueue: temporal.taskQueue,
    workflowId,
    args: [{ psuID, connectorID }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: searchAttributes(connectorID),
    staticSummary: `Delete ${psuSummary(psuID, connectorID)}`,
  });
  return workflowId;
}
