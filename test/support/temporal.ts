import { Client, Connection } from '@temporalio/client';
import { dataConverter } from '../../lib/temporal';

/** A Temporal client on the run's server; close the connection in afterAll. */
export async function temporalClient(): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS as string });
  return { client: new Client({ connection, dataConverter }), connection };
}

export const taskQueue = (): string => process.env.TEST_TASK_QUEUE as string;
