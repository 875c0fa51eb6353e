import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../../lib/search-attributes';
import type { TemporalDeps } from '../../lib/temporal';
import type { bankAccountForward } from '../../workflows/payments/bank-account-forward';
import type { connectorFetch } from '../../workflows/payments/connector-fetch';
import type { paymentInitiationExecute } from '../../workflows/payments/payment-initiation';

/**
 * Every Temporal call of the payments area. Workflow ids are deterministic and readable, so a start repeated after a
 * lost answer finds the run it already started, and an operator recognises a connector, an initiation or a forward in
 * the Web UI; every run carries PlatformArea = "payments" and its ConnectorID as search attributes.
 */
export const fetchWorkflowId = (connectorID: string): string => `connector-${connectorID}-fetch`;
export const initiationWorkflowId = (id: string, attempt: number): string => `payment-initiation-${id}-${attempt}`;
const forwardWorkflowId = (bankAccountID: string, connectorID: string): string => `bank-account-${bankAccountID}-forward-${connectorID}`;

const searchAttributes = (connectorID: string) => [
  { key: SEARCH_ATTRIBUTES.PlatformArea, value: 'payments' },
  { key: SEARCH_ATTRIBUTES.ConnectorID, value: connectorID },
];

/** Starts a connector's long-running fetch workflow. Throws when Temporal refuses. */
export async function startConnectorFetch(temporal: TemporalDeps, input: { connectorID: string; pollingPeriodMs: number; cyclesPerRun?: number }): Promise<void> {
  await temporal.client.workflow.start<typeof connectorFetch>('connectorFetch', {
    taskQueue: temporal.taskQueue,
    workflowId: fetchWorkflowId(input.connectorID),
    args: [input],
    typedSearchAttributes: searchAttributes(input.connectorID),
  });
}

/** Cancels a connector's fetch workflow; one that already ended is fine (the row says uninstalled). */
export async function cancelConnectorFetch(temporal: TemporalDeps, connectorID: string): Promise<void> {
  try {
    await temporal.client.workflow.getHandle(fetchWorkflowId(connectorID)).cancel();
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}

/** Starts one attempt of an initiation's execution; starting an attempt twice is harmless. @returns the workflow id. */
export async function startInitiationExecution(temporal: TemporalDeps, input: { id: string; attempt: number; connectorID: string }): Promise<string> {
  const workflowId = initiationWorkflowId(input.id, input.attempt);
  try {
    await temporal.client.workflow.start<typeof paymentInitiationExecute>('paymentInitiationExecute', {
      taskQueue: temporal.taskQueue,
      workflowId,
      args: [{ paymentInitiationID: input.id, attempt: input.attempt }],
      typedSearchAttributes: searchAttributes(input.connectorID),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return workflowId;
}

/** Why a forward did not create the account: the provider's refusal, or Temporal unreachable. */
export type ForwardOutcome = { ok: true } | { ok: false; refused: string } | { ok: false; unavailable: unknown };

/** Runs the forward of a bank account to a connector and waits for it (joining a run already under way). */
export async function runBankAccountForward(temporal: TemporalDeps, bankAccountID: string, connectorID: string): Promise<ForwardOutcome> {
  const workflowId = forwardWorkflowId(bankAccountID, connectorID);
  try {
    const handle = await temporal.client.workflow
      .start<typeof bankAccountForward>('bankAccountForward', {
        taskQueue: temporal.taskQueue, workflowId, args: [{ bankAccountID, connectorID }], typedSearchAttributes: searchAttributes(connectorID),
      })
      .catch((error) => {
        if (error instanceof WorkflowExecutionAlreadyStartedError) return temporal.client.workflow.getHandle(workflowId);
        throw error;
      });
    await handle.result();
    return { ok: true };
  } catch (error) {
    if (error instanceof WorkflowFailedError) return { ok: false, refused: ((error.cause?.cause ?? error.cause) as Error | undefined)?.message ?? 'failed' };
    return { ok: false, unavailable: error };
  }
}
