import type { Client, Connection } from '@temporalio/client';
import { createTemporalClient } from '../../lib/temporal';
import { pollUntil } from './eventually';

/** A Temporal client on the run's server; close the connection in afterAll. */
export async function temporalClient(): Promise<{ client: Client; connection: Connection }> {
  return createTemporalClient({ address: process.env.TEST_TEMPORAL_ADDRESS as string, namespace: 'default' });
}

export const taskQueue = (): string => process.env.TEST_TASK_QUEUE as string;

/**
 * Waits for the first `count` runs a schedule takes after `since` to end, and returns each one's final status. Such a
 * run began after `since`, so whatever it reads (a provider's files, say) it read as it was then: once it has ended,
 * what it would add is in. The event to check an absence after ("the next fetches add nothing").
 */
export async function runsTakenAfter(client: Client, scheduleId: string, since: Date, count = 1): Promise<string[]> {
  const actions = await pollUntil(
    async () => (await client.schedule.getHandle(scheduleId).describe()).info.recentActions.filter((a) => a.takenAt > since),
    (taken) => taken.length >= count,
    { what: `${count} runs of ${scheduleId} after ${since.toISOString()}` },
  );
  const statuses: string[] = [];
  for (const { action } of actions.slice(0, count)) {
    const handle = client.workflow.getHandle(action.workflow.workflowId, action.workflow.firstExecutionRunId);
    await handle.result().catch(() => undefined); // a failed run is reported by its status
    statuses.push((await handle.describe()).status.name);
  }
  return statuses;
}
