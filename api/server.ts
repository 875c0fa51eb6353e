import v8 from 'node:v8';
import { loadConfig, requireRuntime, type Config } from '../lib/config';
import { createLogger } from '../lib/logger';
import { markStopping } from '../lib/shutdown';
import { createTemporalClient } from '../lib/temporal';
import { startTracing } from '../lib/tracing';
import { createDb } from '../db/knex';
import { observePool } from '../lib/metrics';
import { cursorSigningKey } from '../db/platform-secrets';
import { createApp } from './app';
import { createAuditTrail } from './audit';
import { setupAuth } from './auth';
import { createHttpServer, httpTimeouts } from './http-server';
import { RateLimiter } from './middleware/rate-limit';

/** Starts the API process: Koa on HOST:PORT, with the database, the Temporal client and the OAuth issuer or verifier. */
export async function startApi(config: Config & { databaseUrl: string; temporalAddress: string }) {
  // First, before the database driver is loaded: the pg instrumentation patches it as it loads.
  const tracing = startTracing(config.tracing, 'financial-platform-api');
  const logger = createLogger('api', config.logLevel);
  const timeouts = httpTimeouts();
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
    rateLimiter: RateLimiter.fromEnv(),
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
  // With V8's allocation-site pretenuring on (its default), some processes that take bursts of reads soon after they
  // start stay for good in a state where a read costs 45-58 us of CPU instead of about 31: scavenges four times as long,
  // ten times as many bytes promoted (10 of 30 processes in probes, none of 36 with it off; decision 32, and the
  // bench's api-fresh-replicas rows). Pretenuring allocates the objects of sites whose objects survive
  // scavenges straight in the old generation; a request's objects only survive one while the request is in flight, so
  // the API has nothing to gain from it. Set in main, before any request, not for startApi's in-process callers (tests).
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
  const config = requireRuntime(loadConfig());
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
