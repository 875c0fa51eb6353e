import { InterceptingCall } from '@grpc/grpc-js';
import {
  Client,
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ClientInterceptors,
  type ConnectionOptions,
} from '@temporalio/client';
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

type GrpcInterceptor = NonNullable<ConnectionOptions['interceptors']>[number];

/**
 * The API's Temporal client. Connecting is lazy on the server side, so a down Temporal does not stop the API booting.
 *
 * The connection keeps each call's metadata and deadline in an AsyncLocalStorage (`Connection.callContextStorage`),
 * entered for every namespaced call (the namespace header). Once entered, an AsyncLocalStorage stays enabled, and while
 * any is, Node (20) runs promise hooks on every promise of the process: after the API's first Temporal call every
 * request, Temporal or not, paid them (about a tenth of a read's API CPU). The client reads that context while it
 * builds a call, synchronously inside the scope, before gRPC runs the call's interceptors; so the last interceptor
 * disables the storage (its public `disable()`, as the connection's own close() does) and the next scope enables it
 * again. A scope around an await before a call would lose its context: the platform's scopes are all synchronous
 * (pingTemporal), and test/integration/foundation/temporal-call-context.test.ts checks both sides.
 */
export async function createTemporalClient(settings: TemporalSettings): Promise<{ client: Client; connection: Connection }> {
  // The interceptor is made before the connection whose storage it releases: it reads it through this holder.
  const holder: { storage?: Connection['callContextStorage'] } = {};
  const releaseCallContext: GrpcInterceptor = (options, nextCall) => {
    holder.storage?.disable();
    return new InterceptingCall(nextCall(options));
  };
  const connection = await Connection.connect({
    address: settings.address,
    connectTimeout: '5s',
    // The client's default retries of retryable gRPC errors are kept: a list of interceptors replaces the default one.
    interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), releaseCallContext],
  });
  holder.storage = connection.callContextStorage;
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
