import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../../../lib/search-attributes';
import type { TemporalDeps } from '../../../lib/temporal';
import type { bankAccountForward } from '../../../workflows/payments/bank-account-forward';
import type { paymentInitiationExecute } from '../../../workflows/payments/payment-initiation';
import type { paymentInitiationReverse } from '../../../workflows/payments/payment-initiation-reverse';
import type { paymentServiceUserDelete } from '../../../workflows/payments/psu-delete';
import { failureMessage, forwardWorkflowId, initiationWorkflowId, reversalWorkflowId, searchAttributes } from './workflow-ids';

/** Task workflows, by the type the getTask route reads. */
export const TASK_WORKFLOW_TYPES = [
  'connectorInstall',
  'connectorUninstall',
  'connectorReset',
  'paymentInitiationExecute',
  'bankAccountForward',
  'paymentServiceUserDelete',
  'paymentInitiationReverse',
  'openBankingDeleteConnection',
  'openBankingDeletePsuConnector',
] as const;

export interface TaskRun {
  workflowType: string;
  status: string;
  startTime: Date;
  closeTime?: Date;
  connectorID?: string;
  result?: unknown;
  error?: string;
}

/** Reads a payments task's workflow; undefined when there is no such workflow or it is not a payments task. */
export async function describeTaskRun(temporal: TemporalDeps, workflowId: string): Promise<TaskRun | undefined> {
  let description;
  try {
    description = await temporal.client.workflow.getHandle(workflowId).describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
  const area = description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.PlatformArea);
  if (area !== 'payments' || !(TASK_WORKFLOW_TYPES as readonly string[]).includes(description.type)) return undefined;
  const run: TaskRun = {
    workflowType: description.type,
    status: description.status.name,
    startTime: description.startTime,
    ...(description.closeTime ? { closeTime: description.closeTime } : {}),
    ...(description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.ConnectorID)
      ? { connectorID: description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.ConnectorID) }
      : {}),
  };
  if (run.status === 'RUNNING' || run.status === 'CONTINUED_AS_NEW') return run;
  try {
    return { ...run, result: await temporal.client.workflow.getHandle(workflowId, description.runId).result() };
  } catch (error) {
    return { ...run, error: failureMessage(error) };
  }
}

/** Starts one attempt of an initiation's execution; starting an attempt twice is harmless. @returns the workflow id. */
export async function startInitiationExecution(
  temporal: TemporalDeps,
  input: { id: string; attempt: number; connectorID: string; summary?: string },
): Promise<string> {
  const workflowId = initiationWorkflowId(input.id, input.attempt);
  try {
    await temporal.client.workflow.start<typeof paymentInitiationExecute>('paymentInitiationExecute', {
      taskQueue: temporal.taskQueue,
      workflowId,
      args: [{ paymentInitiationID: input.id, attempt: input.attempt }],
      typedSearchAttributes: searchAttributes(input.connectorID),
      ...(input.summary
        ? { staticSummary: input.summary, staticDetails: `Payment initiation id (API): \`${input.id}\`, attempt ${input.attempt}` }
        : {}),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return workflowId;
}

/**
 * Starts the forward of a bank account to a connector without waiting (Formance's 202 with a task); a run under way
 * is joined. @returns the task (workflow) id.
 */
export async function startBankAccountForward(temporal: TemporalDeps, bankAccountID: string, connectorID: string): Promise<string> {
  const workflowId = forwardWorkflowId(bankAccountID, connectorID);
  await temporal.client.workflow.start<typeof bankAccountForward>('bankAccountForward', {
    taskQueue: temporal.taskQueue,
    workflowId,
    args: [{ bankAccountID, connectorID }],
    typedSearchAttributes: searchAttributes(connectorID),
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return workflowId;
}

/**
 * Waits for a payments task's workflow to close and answers it as describeTaskRun does, or undefined after
 * `timeoutMs` (the task goes on; read it with getTask). For the v1 API, whose forward answers the bank account.
 */
export async function awaitTaskRun(temporal: TemporalDeps, workflowId: string, timeoutMs: number): Promise<TaskRun | undefined> {
  const run = await waitFor(temporal, workflowId, timeoutMs);
  return run.outcome === 'timeout' ? undefined : describeTaskRun(temporal, workflowId);
}

/** Starts the deletion of a payment service user (joining one under way). @returns the task (workflow) id. */
export async function startPaymentServiceUserDelete(temporal: TemporalDeps, paymentServiceUserID: string): Promise<string> {
  const workflowId = `payment-service-user-${paymentServiceUserID}-delete`;
  await temporal.client.workflow.start<typeof paymentServiceUserDelete>('paymentServiceUserDelete', {
    taskQueue: temporal.taskQueue,
    workflowId,
    args: [{ paymentServiceUserID }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: [{ key: SEARCH_ATTRIBUTES.PlatformArea, value: 'payments' }],
    staticSummary: `Delete payment service user ${paymentServiceUserID}`,
  });
  return workflowId;
}

/**
 * Starts the execution of one reversal (`payment-initiation-<id>-reversal-<n>`, the n-th reversal of the initiation);
 * starting it twice is harmless. @returns the workflow id.
 */
export async function startReversalExecution(
  temporal: TemporalDeps,
  input: { paymentInitiationID: string; number: number; reversalID: string; connectorID: string; summary: string },
): Promise<string> {
  const workflowId = reversalWorkflowId(input.paymentInitiationID, input.number);
  try {
    await temporal.client.workflow.start<typeof paymentInitiationReverse>('paymentInitiationReverse', {
      taskQueue: temporal.taskQueue,
      workflowId,
      args: [{ reversalID: input.reversalID }],
      typedSearchAttributes: searchAttributes(input.connectorID),
      staticSummary: input.summary,
      staticDetails: `Payment initiation id (API): \`${input.paymentInitiationID}\`, reversal id (API): \`${input.reversalID}\``,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return workflowId;
}

/** How a workflow the API waited for ended: its result, its failure's message, or still running at the deadline. */
export type WaitedRun<T> = { outcome: 'completed'; result: T } | { outcome: 'failed'; message: string } | { outcome: 'timeout' };

export async function waitFor<T>(temporal: TemporalDeps, workflowId: string, timeoutMs: number): Promise<WaitedRun<T>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<WaitedRun<T>>((resolve) => (timer = setTimeout(() => resolve({ outcome: 'timeout' }), timeoutMs)));
  try {
    return await Promise.race([
      temporal.client.workflow
        .getHandle(workflowId)
        .result()
        .then(
          (result) => ({ outcome: 'completed' as const, result: result as T }),
          (error) => ({ outcome: 'failed' as const, message: failureMessage(error) }),
        ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
