import type { Client, Connection } from '@temporalio/client';
import { createTemporalClient } from '../../lib/temporal';

/** A Temporal client on the run's server; close the connection in afterAll. */
export async function temporalClient(): Promise<{ client: Client; connection: Connection }> {
  return createTemporalClient({ address: process.env.TEST_TEMPORAL_ADDRESS as string, namespace: 'default' });
}

export const taskQueue = (): string => process.env.TEST_TASK_QUEUE as string;
