import { notFound } from '../../../lib/errors';
import type { TemporalDeps } from '../../../lib/temporal';
import { describeTaskRun } from '../engine';

/** Formance's V3Task. */
export interface Task {
  id: string;
  status: 'PROCESSING' | 'SUCCEEDED' | 'FAILED';
  connectorID?: string;
  createdAt: Date;
  updatedAt: Date;
  createdObjectID?: string;
  error?: string;
}

/**
 * A task is the Temporal workflow that runs an asynchronous payments operation (uninstall, reset, a payment
 * initiation's execution, a bank account forward); its id is the workflow id. Running is PROCESSING; completed is
 * SUCCEEDED, except an initiation whose attempt the provider refused (the workflow records the failure and completes),
 * which is FAILED with the provider's message; failed, timed out, cancelled or terminated is FAILED with the cause.
 * Throws NOT_FOUND for any other id.
 */
export async function getTask(temporal: TemporalDeps, taskID: string): Promise<Task> {
  const run = await describeTaskRun(temporal, taskID);
  if (!run) throw notFound(`task ${taskID} not found`);
  const base = {
    id: taskID,
    ...(run.connectorID ? { connectorID: run.connectorID } : {}),
    createdAt: run.startTime,
    updatedAt: run.closeTime ?? run.startTime,
  };
  if (run.status === 'RUNNING' || run.status === 'CONTINUED_AS_NEW') return { ...base, status: 'PROCESSING' };
  if (run.error !== undefined || run.status !== 'COMPLETED') return { ...base, status: 'FAILED', error: run.error ?? run.status };
  const result = run.result as { status?: string; error?: string; paymentID?: string } | string | undefined;
  if (typeof result === 'object' && result?.status === 'FAILED') return { ...base, status: 'FAILED', error: result.error ?? 'failed' };
  const createdObjectID = typeof result === 'string' ? result : result?.paymentID;
  return { ...base, status: 'SUCCEEDED', ...(createdObjectID ? { createdObjectID } : {}) };
}
