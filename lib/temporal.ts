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
  // connect checked the server under withDeadline; nothing else holds the connection yet (see pingTemporal).
  connection.callContextStorage.disable();
  const client = new Client({ connection, namespace: settings.namespace, dataConverter });
  return { client, connection };
}

const pingsInFlight = new WeakMap<Connection, number>();

/**
 * Resolves when the server answers a cheap RPC within `timeoutMs`; used by the health check and start-up waits.
 * @temporalio/client keeps a call's deadline in an AsyncLocalStorage that `withDeadline` enables, and while any
 * AsyncLocalStorage is enabled Node runs promise hooks on every promise of the process: left on by connect and the
 * health check, they cost every API request about a tenth of its CPU. Pings and connect are the platform's only calls
 * that set a call context, so the storage is disabled once no ping is in flight (other calls read no store anyway).
 */
export async function pingTemporal(connection: Connection, timeoutMs = 2000): Promise<void> {
  pingsInFlight.set(connection, (pingsInFlight.get(connection) ?? 0) + 1);
  try {
    await connection.withDeadline(Date.now() + timeoutMs, () => connection.workflowService.getSystemInfo({}));
  } finally {
    const left = (pingsInFlight.get(connection) ?? 1) - 1;
    pingsInFlight.set(connection, left);
    if (left === 0) connection.callContextStorage.disable();
  }
}

/** What an area's engine needs to reach Temporal: the client and the one task queue of every workflow. */
export interface TemporalDeps {
  client: Client;
  taskQueue: string;
}
