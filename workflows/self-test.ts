import { proxyActivities } from '@temporalio/workflow';
import type { SystemActivities } from '../activities/system';

const { echo } = proxyActivities<SystemActivities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '200ms', maximumAttempts: 3 },
});

/**
 * A workflow with one activity, used by the test suite and by operators to check that the worker, the Temporal server
 * and the database all answer: its run shows up in the Web UI as `platformSelfTest`.
 */
export async function platformSelfTest(message: string): Promise<{ echoed: string; databaseTime: string }> {
  return echo(message);
}
