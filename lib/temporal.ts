import { Client, Connection } from '@temporalio/client';

/**
 * The data converter of every client, worker and replayer of the platform: JSON with exact big integers (see
 * temporal-payload-converter.ts). A client without it cannot start workflows whose input holds a BigInt.
 */
export const dataConverter = { payloadConverterPath: require.resolve('./temporal-payload-converter') };

export interface TemporalSettings {
  address: string;
  namespace: string;
}

/** The API's Temporal client. Connecting is lazy on the server side, so a down Temporal does not stop the API booting. */
export async function createTemporalClient(settings: TemporalSettings): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({ address: settings.address, connectTimeout: '5s' });
  const client = new Client({ connection, namespace: settings.namespace, dataConverter });
  return { client, connection };
}

/** Resolves when the server answers a cheap RPC within `timeoutMs`; used by the health check and start-up waits. */
export async function pingTemporal(connection: Connection, timeoutMs = 2000): Promise<void> {
  await connection.withDeadline(Date.now() + timeoutMs, () => connection.workflowService.getSystemInfo({}));
}

/** What an area's engine needs to reach Temporal: the client and the one task queue of every workflow. */
export interface TemporalDeps {
  client: Client;
  taskQueue: string;
}
