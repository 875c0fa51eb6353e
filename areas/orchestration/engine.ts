import { WorkflowNotFoundError } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { SEARCH_ATTRIBUTES } from '../../lib/search-attributes';
import type { TemporalDeps } from '../../lib/temporal';
import type { InstanceInput, orchestrationInstance } from '../../workflows/orchestration/instance';

/**
 * Every Temporal call of the orchestration area. An instance is one `orchestrationInstance` workflow whose id is the
 * instance id, so the Web UI finds a run by the id the API returned, and a start can never run an instance twice
 * (REJECT_DUPLICATE). Its summary names the workflow definition; its search attributes let an operator filter by
 * definition or trigger.
 */
export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
export type PendingActivity = temporal.api.workflow.v1.IPendingActivityInfo;

/** The workflow is not running (ended, or never started): signals and cancels have nothing to reach. */
export class InstanceNotRunning extends Error {}

export async function startInstance(
  temporal: TemporalDeps,
  input: InstanceInput,
  labels: { workflowName: string; triggerID?: string },
): Promise<{ result(): Promise<unknown> }> {
  return temporal.client.workflow.start<typeof orchestrationInstance>('orchestrationInstance', {
    taskQueue: temporal.taskQueue,
    workflowId: input.instanceID,
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    args: [input],
    staticSummary: `${labels.workflowName || 'workflow'} (${input.workflowID})`,
    typedSearchAttributes: [
      { key: SEARCH_ATTRIBUTES.PlatformArea, value: 'orchestration' },
      { key: SEARCH_ATTRIBUTES.OrchestrationWorkflowID, value: input.workflowID },
      ...(labels.triggerID ? [{ key: SEARCH_ATTRIBUTES.OrchestrationTriggerID, value: labels.triggerID }] : []),
    ],
  });
}

async function onRunning(call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    throw error instanceof WorkflowNotFoundError ? new InstanceNotRunning(error.message) : error;
  }
}

/** Delivers `POST .../events {name}` as the workflow's `event` signal. Throws InstanceNotRunning. */
export const signalEvent = (temporal: TemporalDeps, instanceID: string, name: string) =>
  onRunning(() => temporal.client.workflow.getHandle(instanceID).signal('event', { name }));

/** Requests cancellation: the running stage and the instance end with "canceled". Throws InstanceNotRunning. */
export const cancelInstance = (temporal: TemporalDeps, instanceID: string) =>
  onRunning(() => temporal.client.workflow.getHandle(instanceID).cancel());

/** The instance workflow's whole event history (all pages); empty when the workflow never started. */
export async function instanceHistory(temporal: TemporalDeps, instanceID: string): Promise<HistoryEvent[]> {
  try {
    return (await temporal.client.workflow.getHandle(instanceID).fetchHistory()).events ?? [];
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return [];
    throw error;
  }
}

/** The activities the instance is waiting on now, with their attempt, last failure and next retry. */
export async function pendingActivities(temporal: TemporalDeps, instanceID: string): Promise<PendingActivity[]> {
  const { raw } = await temporal.client.workflow.getHandle(instanceID).describe();
  return raw.pendingActivities ?? [];
}
