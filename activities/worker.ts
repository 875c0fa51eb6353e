import { Client } from '@temporalio/client';
import { Gauge } from 'prom-client';
import { bundleWorkflowCode, NativeConnection, Runtime, Worker, DefaultLogger, type WorkerOptions } from '@temporalio/worker';
import { getConfig, requireRuntime } from '../lib/config';
import { loadConnectorPlugins } from './payments/plugins';
import { createLogger } from '../lib/logger';
import { markStopping } from '../db/shutdown';
import { createDb } from '../db/knex';
import { observePool, registry, serveMetrics } from '../lib/metrics';
import { outboxBacklog } from '../areas/events';
import { logHashLag } from '../areas/ledger';
import { PinoTemporalLogger } from './temporal-logger';
import { startAuditRetention } from './audit-retention';
import { createTemporalClient, dataConverter, tracingClientInterceptors } from '../lib/temporal';
import { startTracing, type RunningTracing } from '../lib/tracing';
import { webhookTaskQueue } from '../lib/webhooks/task-queue';
import { createActivities } from './index';
import { createWebhookActivities } from './webhooks';
import { startDrainSweep } from './webhooks/sweep';
import { startEventDispatcher } from './events/dispatcher';
import { startLogHasher } from './ledger/log-hasher';

/**
 * The worker process: runs every workflow and activity of the platform on its task queue, and webhook workflows and
 * activities on the webhook task queue (`<taskQueue>-webhooks`) with slots of their own, so webhook work (many
 * requests to slow or dead endpoints) never holds the slots other areas' workflows need. The platform queue keeps the
 * webhook activities too, for the workflows of the previous release that still schedule them there. Stateless; run
 * as many as needed against the same Temporal namespace and database.
 */
export async function createWorker(options: {
  address: string;
  namespace: string;
  taskQueue: string;
  databaseUrl: string;
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Tracing, started by the caller before anything else (lib/tracing.ts); undefined when off. */
  tracing?: RunningTracing;
}) {
  const logger = createLogger('worker');
  const db = createDb(options.databaseUrl);
  const connection = await NativeConnection.connect({ address: options.address });
  const client = new Client({ connection, namespace: options.namespace, dataConverter, interceptors: tracingClientInterceptors() });
  const traced = options.tracing ? workerTracing(options.tracing) : undefined;
  // One bundle for both workers (bundling is seconds of CPU), with the payload converter the workflows use for exact
  // integers (Worker.create would add it to a bundle it made itself), and with tracing on, the workflow interceptors.
  const workflowBundle =
    options.workflowBundle ??
    (await bundleWorkflowCode({
      workflowsPath: require.resolve('../workflows'),
      payloadConverterPath: dataConverter.payloadConverterPath,
      workflowInterceptorModules: traced?.workflowModules,
      logger: new DefaultLogger('WARN'),
    }));
  const temporal = { client, taskQueue: options.taskQueue };
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowBundle,
    dataConverter,
    activities: createActivities({ db, logger, temporal }),
    ...traced?.workerOptions,
  });
  const webhookWorker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: webhookTaskQueue(options.taskQueue),
    workflowBundle,
    dataConverter,
    activities: createWebhookActivities({ db, temporal }),
    ...traced?.workerOptions,
  });
  const close = async () => {
    await connection.close();
    await db.destroy();
  };
  return { worker, webhookWorker, close, logger, db };
}

/**
 * The worker's share of tracing (@temporalio/interceptors-opentelemetry): workflow interceptors in the bundle (spans of
 * each workflow run and of the activities it schedules, made deterministically in the sandbox and exported through a
 * sink), activity interceptors (each activity's span, child of the workflow's, in whose context its SQL and HTTP calls
 * run), and the trace context carried in every header. Only built with tracing on: the interceptors change no command
 * a workflow sends, so histories recorded with tracing off replay with it on and the other way round.
 */
function workerTracing(tracing: RunningTracing): { workflowModules: string[]; workerOptions: Pick<WorkerOptions, 'interceptors' | 'sinks'> } {
  // Required here, not imported: with tracing off the interceptors and the SDK they load stay out of the process.
  const otel = require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');
  return {
    workflowModules: [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')],
    workerOptions: {
      interceptors: {
        client: tracingClientInterceptors(),
        activity: [
          (ctx) => ({
            inbound: new otel.OpenTelemetryActivityInboundInterceptor(ctx),
            outbound: new otel.OpenTelemetryActivityOutboundInterceptor(ctx),
          }),
        ],
      },
      sinks: { exporter: otel.makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
    },
  };
}

async function main(): Promise<void> {
  const config = requireRuntime(getConfig());
  // First, before the database driver is loaded: the pg instrumentation patches it as it loads.
  const tracing = startTracing(config.tracing, 'financial-platform-worker');
  // Before anything connects: a plugin module that cannot be loaded stops the worker here, naming the setting.
  loadConnectorPlugins(config.paymentsConnectorPlugins);
  // Runtime.install stops a running worker on these signals; from then on, a database going away is part of the stop.
  // A signal during start-up (Ctrl-C right after `npm start` is up) ends the process at once: nothing runs yet, and
  // the SDK would otherwise keep retrying its connection to a Temporal server that is stopping too.
  let running = false;
  const onStopSignal = () => {
    markStopping();
    if (!running) process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, onStopSignal);
  // The SDK's own logs, the Rust core's included (forwarded), as one JSON line each through pino (temporal-logger.ts).
  const temporalLogger = createLogger('temporal', config.temporalLogLevel.toLowerCase());
  Runtime.install({
    logger: new PinoTemporalLogger(temporalLogger),
    telemetryOptions: {
      logging: { filter: { core: config.temporalLogLevel, other: 'ERROR' }, forward: {} },
      ...(config.temporalMetricsPort > 0
        ? {
            metrics: {
              prometheus: {
                bindAddress: `${config.metricsHost}:${config.temporalMetricsPort}`,
                countersTotalSuffix: true,
                unitSuffix: true,
                useSecondsForDurations: true,
              },
            },
          }
        : {}),
    },
  });
  const { worker, webhookWorker, close, logger, db } = await createWorker({
    address: config.temporalAddress,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    databaseUrl: config.databaseUrl,
    tracing,
  });
  const temporal = await createTemporalClient({ address: config.temporalAddress, namespace: config.temporalNamespace });
  // The outbox dispatcher lives in every worker replica (safe: see startEventDispatcher), so no extra process to run.
  const dispatcher = startEventDispatcher({
    db,
    databaseUrl: config.databaseUrl,
    temporal: { client: temporal.client, taskQueue: config.taskQueue },
    logger,
  });
  // The ledger log hasher lives next to it, for the same reason (one hasher per ledger at a time: see startLogHasher).
  const hasher = startLogHasher({ db, databaseUrl: config.databaseUrl, logger });
  // Every endpoint queue gets its drain workflow, even after a crash between queueing and starting (idempotent).
  const sweep = startDrainSweep({ db, temporal: { client: temporal.client, taskQueue: config.taskQueue }, logger });
  const auditRetention = startAuditRetention({ db, retentionDays: config.auditRetentionDays, logger });
  observePool(db, 'worker');
  registerOutboxGauges(db);
  const metricsServer = config.workerMetricsPort > 0 ? await serveMetrics(config.metricsHost, config.workerMetricsPort) : undefined;
  logger.info(
    {
      taskQueue: config.taskQueue,
      namespace: config.temporalNamespace,
      metrics: metricsServer && `http://${config.metricsHost}:${config.workerMetricsPort}/metrics`,
      temporalMetrics: config.temporalMetricsPort > 0 ? `http://${config.metricsHost}:${config.temporalMetricsPort}/metrics` : undefined,
    },
    'worker started',
  );
  // Runtime.install's default shutdown signals (SIGINT, SIGTERM) make run() resolve after in-flight tasks finish.
  running = true;
  await Promise.all([worker.run(), webhookWorker.run()]);
  await dispatcher.stop();
  await hasher.stop();
  await sweep.stop();
  await auditRetention.stop();
  await new Promise((resolve) => (metricsServer ? metricsServer.close(resolve) : resolve(undefined)));
  await temporal.connection.close();
  await close();
  await tracing?.shutdown();
  logger.info('worker stopped');
}

/** The outbox's backlog and the log hasher's lag, read from PostgreSQL at each scrape (indexed counts). */
function registerOutboxGauges(db: ReturnType<typeof createDb>): void {
  let last: Promise<{ events: number; oldestAgeSeconds: number }> | undefined;
  // Both gauges of one scrape share one query.
  const read = () => (last ??= outboxBacklog(db).finally(() => setImmediate(() => (last = undefined))));
  new Gauge({
    name: 'events_outbox_backlog',
    help: 'Events written to the outbox and not yet dispatched to their batch workflow',
    registers: [registry],
    async collect() {
      this.set((await read()).events);
    },
  });
  new Gauge({
    name: 'events_outbox_oldest_age_seconds',
    help: 'Age of the oldest event not yet dispatched (0 when the outbox is empty)',
    registers: [registry],
    async collect() {
      this.set((await read()).oldestAgeSeconds);
    },
  });
  new Gauge({
    name: 'ledger_log_hash_lag_logs',
    help: "Ledger logs written and not yet hashed into their ledger's chain (ledgers with HASH_LOGS disabled aside)",
    registers: [registry],
    async collect() {
      this.set(await logHashLag(db));
    },
  });
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
