import { Client } from '@temporalio/client';
import { Gauge } from 'prom-client';
import { bundleWorkflowCode, NativeConnection, Runtime, Worker, DefaultLogger, type WorkerOptions } from '@temporalio/worker';
import { getConfig, requireRuntime } from '../lib/config';
import { createLogger } from '../lib/logger';
import { markStopping } from '../db/shutdown';
import { createDb } from '../db/knex';
import { observePool, registry, serveMetrics } from '../lib/metrics';
import { outboxBacklog } from '../areas/events';
import { PinoTemporalLogger } from './temporal-logger';
import { startAuditRetention } from './audit-retention';
import { createTemporalClient, dataConverter } from '../lib/temporal';
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
}) {
  const logger = createLogger('worker');
  const db = createDb(options.databaseUrl);
  const connection = await NativeConnection.connect({ address: options.address });
  const client = new Client({ connection, namespace: options.namespace, dataConverter });
  // One bundle for both workers (bundling is seconds of CPU), with the payload converter the workflows use for exact
  // integers (Worker.create would add it to a bundle it made itself).
  const workflowBundle =
    options.workflowBundle ?? (await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), payloadConverterPath: dataConverter.payloadConverterPath, logger: new DefaultLogger('WARN') }));
  const temporal = { client, taskQueue: options.taskQueue };
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowBundle,
    dataConverter,
    activities: createActivities({ db, logger, temporal }),
  });
  const webhookWorker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: webhookTaskQueue(options.taskQueue),
    workflowBundle,
    dataConverter,
    activities: createWebhookActivities({ db, temporal }),
  });
  const close = async () => {
    await connection.close();
    await db.destroy();
  };
  return { worker, webhookWorker, close, logger, db };
}

async function main(): Promise<void> {
  const config = requireRuntime(getConfig());
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
        ? { metrics: { prometheus: { bindAddress: `${config.metricsHost}:${config.temporalMetricsPort}`, countersTotalSuffix: true, unitSuffix: true, useSecondsForDurations: true } } }
        : {}),
    },
  });
  const { worker, webhookWorker, close, logger, db } = await createWorker({
    address: config.temporalAddress,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    databaseUrl: config.databaseUrl,
  });
  const temporal = await createTemporalClient({ address: config.temporalAddress, namespace: config.temporalNamespace });
  // The outbox dispatcher lives in every worker replica (safe: see startEventDispatcher), so no extra process to run.
  const dispatcher = startEventDispatcher({ db, databaseUrl: config.databaseUrl, temporal: { client: temporal.client, taskQueue: config.taskQueue }, logger });
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
  logger.info('worker stopped');
}

/** The outbox's backlog, read from PostgreSQL at each scrape (one indexed count over the undispatched events). */
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
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
