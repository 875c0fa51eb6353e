import { loadConfig } from '../lib/config';
import { startPlatform } from './stack/platform';
import { removeRunFile, writeRunFile } from './stack/run-file';

/**
 * `npm start`: the whole platform on one machine for a newcomer. Ctrl-C (SIGINT) or SIGTERM stops every part it
 * started, in reverse order, leaving nothing running.
 */
async function main(): Promise<void> {
  const started = Date.now();
  const config = loadConfig();
  const verbose = config.logLevel === 'debug';
  const log = (part: string, line: string) => {
    // The API and worker log JSON lines; show them as they are, prefixed with their process.
    if (verbose || !['postgres'].includes(part)) process.stdout.write(`${part.padEnd(10)}| ${line}\n`);
  };
  // Signals are handled from the first moment: Ctrl-C during start-up must stop what has started, not orphan it.
  const startup = new AbortController();
  const running: { platform?: Awaited<ReturnType<typeof startPlatform>> } = {};
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    if (!running.platform) {
      process.stdout.write(`\n${signal} received during start-up: stopping what has started...\n`);
      startup.abort();
      return;
    }
    process.stdout.write(`\n${signal} received: stopping API, worker, Temporal and PostgreSQL...\n`);
    removeRunFile(config.runFile);
    running.platform.stop().then(
      () => {
        process.stdout.write('stopped.\n');
        process.exit(0);
      },
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  // A SIGTERM sent to `npm start` itself (a service manager, `kill` on a detached run) ends npm and its shell without
  // reaching us: npm does not forward it through `sh -c`. Our parent going away means whoever ran us is gone, so we
  // stop as for a signal instead of leaving PostgreSQL, Temporal, the worker and the API running as orphans.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) shutdown('parent process exit');
  }, 500).unref();

  const platform = await startPlatform({
    signal: startup.signal,
    dataDir: config.dataDir,
    env: process.env,
    apiPort: config.port,
    postgresPort: config.embeddedPostgresPort,
    temporalPort: config.temporalPort,
    temporalUiPort: config.temporalUiPort,
    workerMetricsPort: config.workerMetricsPort,
    temporalMetricsPort: config.temporalMetricsPort,
    temporalSqlite: true,
    persistentPostgres: true,
    log,
  });
  running.platform = platform;
  writeRunFile(
    {
      pid: process.pid,
      apiUrl: platform.apiUrl,
      dataDir: config.dataDir,
      databaseUrl: platform.databaseUrl,
      temporalAddress: platform.temporalAddress,
      temporalUiUrl: platform.temporalUiUrl,
      startedAt: new Date().toISOString(),
    },
    config.runFile,
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const { credentials } = platform;
  const banner = [
    '',
    `Financial platform is up (API healthy and worker polling after ${seconds} s)`,
    `  API            ${platform.apiUrl}`,
    `  API docs       ${platform.apiUrl}/api/docs   (OpenAPI: ${platform.apiUrl}/api/openapi.json)`,
    `  Health         ${platform.apiUrl}/_healthcheck`,
    `  Metrics        ${config.apiMetrics ? `${platform.apiUrl}/metrics (API)` : '(API: API_METRICS=off)'}   ${platform.workerMetricsUrl || '(worker: off)'} (worker)   ${platform.temporalMetricsUrl || '(Temporal SDK: off)'} (Temporal SDK)`,
    `  Temporal UI    ${platform.temporalUiUrl ?? '(external Temporal at ' + platform.temporalAddress + ')'}`,
    `  Temporal gRPC  ${platform.temporalAddress}`,
    `  PostgreSQL     ${platform.databaseUrl.replace(/:[^:@/]+@/, ':***@')}`,
    `  Data directory ${config.dataDir}`,
    '',
    `  OAuth client   id ${credentials.clientId}   secret ${credentials.clientSecret}   (${credentials.source})`,
    `  Get a token    curl -s -u '${credentials.clientId}:${credentials.clientSecret}' -d grant_type=client_credentials ${platform.apiUrl}/api/auth/oauth/token`,
    `                 or: npm run -s token   (from any shell: this run is recorded in ${config.runFile})`,
    '',
    'Press Ctrl-C to stop everything.',
    '',
  ];
  process.stdout.write(banner.join('\n'));
}

main().catch((error) => {
  const aborted = error instanceof Error && error.name === 'AbortError';
  console.error(
    aborted ? 'start-up aborted; everything started so far was stopped.' : `start failed: ${error instanceof Error ? error.message : error}`,
  );
  process.exit(aborted ? 0 : 1);
});
