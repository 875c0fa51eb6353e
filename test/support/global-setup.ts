import fs from 'node:fs';
import path from 'node:path';
import { startThrowawayPlatform, type RunningPlatform } from '../../scripts/stack/platform';
import { startControlServer } from './control-server';
import { startStripeMock } from './stripe-mock';

declare global {
  var __PLATFORM__:
    | { platform: RunningPlatform; dataDir: string; ownDataDir: boolean; closeControl: () => Promise<void>; stopStripeMock: () => Promise<void> }
    | undefined;
}

/**
 * Starts one real platform for the whole run: embedded PostgreSQL and an in-memory Temporal dev server (or the ones
 * given by DATABASE_URL / TEMPORAL_ADDRESS), migrations, the worker and the API as child processes on free ports.
 * Tests reach it over HTTP and through the environment variables set here. Logs go to <dataDir>/platform.log.
 */
export default async function globalSetup(): Promise<void> {
  const ownDataDir = !process.env.TEST_DATA_DIR;
  const started = Date.now();
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL || 'warn', NODE_ENV: 'test' };
  // Webhooks: the test receivers listen on 127.0.0.1, and retries come within a second instead of minutes.
  Object.assign(env, {
    WEBHOOKS_ALLOWED_CIDRS: '127.0.0.0/8',
    WEBHOOKS_RETRY_INITIAL_INTERVAL_MS: '200',
    WEBHOOKS_RETRY_MAX_INTERVAL_MS: '1000',
    WEBHOOKS_RETRY_FOR_MS: '30000',
    EVENTS_POLL_INTERVAL_MS: '500',
  });
  // Endpoint queues: one request at a time (so a test can check their order), a failing endpoint disabled after 10 s,
  // and a sweep often enough that a lost drain start is recovered within a test's wait.
  Object.assign(env, { WEBHOOKS_DRAIN_CONCURRENCY: '1', WEBHOOKS_DISABLE_AFTER_MS: '10000', WEBHOOKS_DRAIN_SWEEP_INTERVAL_MS: '5000' });
  // A connector plugin that is not built in, loaded as a team's own would be (test/integration/payments/connector-plugins.test.ts).
  env.PAYMENTS_CONNECTOR_PLUGINS = path.join(__dirname, '..', 'fixtures', 'payments-plugin', 'fixturebank.ts');
  // Stripe's mock server for the Stripe connector's tests, built once into .tools/ by scripts/setup-stripe-mock.sh (those tests
  // fail with a message naming the script when TEST_STRIPE_MOCK_URL is absent).
  const stripeMock = await startStripeMock();
  if (stripeMock) process.env.TEST_STRIPE_MOCK_URL = stripeMock.url;
  const stopStripeMock = async () => stripeMock?.stop();
  const platform = await startThrowawayPlatform({ purpose: 'test', env, dataDir: process.env.TEST_DATA_DIR || undefined }).catch(async (error) => {
    await stopStripeMock();
    throw error;
  });
  const { dataDir } = platform;
  process.env.TEST_API_URL = platform.apiUrl;
  process.env.TEST_DATABASE_URL = platform.databaseUrl;
  process.env.TEST_TEMPORAL_ADDRESS = platform.temporalAddress;
  process.env.TEST_WORKER_METRICS_URL = platform.workerMetricsUrl;
  process.env.TEST_TEMPORAL_METRICS_URL = platform.temporalMetricsUrl;
  process.env.TEST_CLIENT_ID = platform.credentials.clientId;
  process.env.TEST_CLIENT_SECRET = platform.credentials.clientSecret;
  process.env.TEST_TASK_QUEUE = env.TEMPORAL_TASK_QUEUE || 'financial-platform';
  process.env.TEST_PLATFORM_DATA_DIR = dataDir;
  const control = await startControlServer(platform);
  process.env.TEST_CONTROL_URL = control.url;
  globalThis.__PLATFORM__ = { platform, dataDir, ownDataDir, closeControl: control.close, stopStripeMock };
  // An interrupted run (Ctrl-C, SIGTERM from CI) never reaches the global teardown: stop the platform and remove its
  // data directory (the database, Temporal's, and every test's temporary directory: test/support/temp-dir.ts) here.
  const onInterrupt = (signal: NodeJS.Signals) => {
    process.stderr.write(`\n${signal}: stopping the test platform and removing ${dataDir}\n`);
    const forceExit = setTimeout(() => process.exit(130), 20_000);
    forceExit.unref();
    void Promise.allSettled([control.close(), platform.stop(), stopStripeMock()]).finally(() => {
      if (ownDataDir && !process.env.KEEP_TEST_DATA) fs.rmSync(dataDir, { recursive: true, force: true });
      process.exit(130);
    });
  };
  process.once('SIGINT', onInterrupt);
  process.once('SIGTERM', onInterrupt);
  process.stdout.write(
    `\nplatform for tests up in ${((Date.now() - started) / 1000).toFixed(1)} s at ${platform.apiUrl} (logs: ${dataDir}/platform.log)\n`,
  );
}
