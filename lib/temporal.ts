import { Client, Connection } from '@temporalio/client';

export interface TemporalSettings {
  address: string;
  namespace: string;
}

/** The API's Temporal client. Connecting is lazy on the server side, so a down Temporal does not stop the API booting. */
export async function createTemporalClient(settings: TemporalSettings): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({ address: settings.address, connectTimeout: '5s' });
  const client = new Client({ connection, namespace: settings.namespace });
  return { client, connection };
}

/** Resolves when the server answers a cheap RPC within `timeoutMs`; used by the health check and start-up waits. */
export async function pingTemporal(connection: Connection, timeoutMs = 2000): Promise<void> {
  await connection.withDeadline(Date.now() + timeoutMs, () => connection.workflowService.getSystemInfo({}));
}
