import { Client, Connection, type ClientInterceptors } from '@temporalio/client';
import { tracingEnabled } from './tracing';

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
  const client = new Client({ connection, namespace: settings.namespace, dataConverter, interceptors: tracingClientInterceptors() });
  return { client, connection };
}

/**
 * With tracing on, a workflow start (and signal, query) carries the caller's trace context in its Temporal headers, so
 * the workflow's and its activities' spans join the trace of the request that started it. Undefined when off: the
 * interceptors package (and the OTel SDK it loads) is not even required.
 */
export function tracingClientInterceptors(): ClientInterceptors | undefined {
  if (!tracingEnabled()) return undefined;
  // Required here, not imported: with tracing off the interceptors and the SDK they load stay out of the process.
  const { OpenTelemetryWorkflowClientInterceptor } =
    require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor()] };
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
