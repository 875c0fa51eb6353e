import { loadConfig } from '../lib/config';
import { startPlatform } from './stack/platform';

/**
 * `npm start`: the whole platform on one machine for a newcomer. Ctrl-C (SIGINT) or SIGTERM stops every part it
 * started, in reverse order, leaving nothing running.
 */
async function main(): Promise<void> {
  const started = Date.now();
  const config = loadConfig();
  const verbose = process.env.LOG_LEVEL === 'debug';
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

  const platform = await startPlatform({
    signal: startup.signal,
    dataDir: config.dataDir,
    env: process.env,
    apiPort: config.port,
    postgresPort: Number(process.env.EMBEDDED_POSTGRES_PORT || 54329),
    temporalPort: Number(process.env.TEMPORAL_PORT || 7233),
    temporalUiPort: Number(process.env.TEMPORAL_UI_PORT || 8233),
    temporalSqlite: true,
    persistentPostgres: true,
    log,
  });
  running.platform = platform;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const { credentials } = platform;
  const banner = [
    '',
    `Financial platform is up (healthy after ${seconds} s)`,
    `  API            ${platform.apiUrl}`,
    `  API docs       ${platform.apiUrl}/api/docs   (OpenAPI: ${platform.apiUrl}/api/openapi.json)`,
    `  Health         ${platform.apiUrl}/_healthcheck`,
    `  Temporal UI    ${platform.temporalUiUrl ?? '(external Temporal at ' + platform.temporalAddress + ')'}`,
    `  Temporal gRPC  ${platform.temporalAddress}`,
    `  PostgreSQL     ${platform.databaseUrl.replace(/:[^:@/]+@/, ':***@')}`,
    `  Data directory ${config.dataDir}`,
    '',
    `  OAuth client   id ${credentials.clientId}   secret ${credentials.clientSecret}   (${credentials.source})`,
    `  Get a token    curl -s -u '${credentials.clientId}:${credentials.clientSecret}' -d grant_type=client_credentials ${platform.apiUrl}/api/auth/oauth/token`,
    `                 or: npm run -s token`,
    '',
    'Press Ctrl-C to stop everything.',
    '',
  ];
  process.stdout.write(banner.join('\n'));
}

main().catch((error) => {
  const aborted = error instanceof Error && error.name === 'AbortError';
  console.error(aborted ? 'start-up aborted; everything started so far was stopped.' : `start failed: ${error instanceof Error ? error.message : error}`);
  process.exit(aborted ? 0 : 1);
});
