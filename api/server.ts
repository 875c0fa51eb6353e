import { getConfig, requireRuntime, type Config } from '../lib/config';
import { createLogger } from '../lib/logger';
import { markStopping } from '../db/shutdown';
import { createTemporalClient } from '../lib/temporal';
import { startTracing } from '../lib/tracing';
import { createDb } from '../db/knex';
import { observePool } from '../lib/metrics';
import { cursorSigningKey } from '../db/platform-secrets';
import { createApp } from './app';
import { loadConnectorPlugins } from '../activities/payments/plugins';
import { createAuditTrail } from './audit';
import { setupAuth } from './auth';
import { createHttpServer, httpTimeouts } from './http-server';
import { RateLimiter } from './middleware/rate-limit';

/** Starts the API process: Koa on HOST:PORT, with the database, the Temporal client and the OAuth issuer or verifier. */
export async function startApi(config: Config & { databaseUrl: string; temporalAddress: string }) {
  // First, before the database driver is loaded: the pg instrumentation patches it as it loads.
  const tracing = startTracing(config.tracing, 'financial-platform-api');
  // Before anything connects: a plugin module that cannot be loaded stops the API here, naming the setting. The install
  // routes and the webhook verification of every plugin come from this registry.
  loadConnectorPlugins(config.paymentsConnectorPlugins);
  const logger = createLogger('api', config.logLevel);
  const timeouts = httpTimeouts(config);
  const db = createDb(config.databaseUrl);
  observePool(db, 'api');
  const temporal = await createTemporalClient({ address: config.temporalAddress, namespace: config.temporalNamespace });
  const auth = await setupAuth(config, db, logger);
  const cursorKey = await cursorSigningKey(db, config.cursorSigningKey);
  const audit = createAuditTrail(db, logger);
  const app = createApp({
    config,
    db,
    logger,
    temporal: { ...temporal, taskQueue: config.taskQueue },
    verifier: auth.verifier,
    cursorKey,
    mounts: auth.mounts,
    rateLimiter: RateLimiter.fromConfig(config),
    audit,
  });
  const server = createHttpServer(app.callback(), timeouts);
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  logger.info({ url: config.publicUrl, issuer: auth.issuer, timeouts }, 'api listening');
  const close = async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    // Every answered request's entry is written before the pool goes.
    await audit.close();
    await auth.close();
    await temporal.connection.close();
    await db.destroy();
    // Last: the spans of the requests answered above are exported before the process ends.
    await tracing?.shutdown();
  };
  return { server, close, logger };
}

async function main(): Promise<void> {
  const config = requireRuntime(getConfig());
  const { close, logger } = await startApi(config);
  let stopping = false;
  // Ctrl-C under `npm start` brings the terminal's SIGINT and then the supervisor's SIGTERM: one stop is enough.
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    markStopping();
    logger.info({ signal }, 'api stopping');
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
