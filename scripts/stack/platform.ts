import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb } from '../../db/knex';
import { migrateLatest } from '../../db/migrations';
import { ensureBootstrapClient, type BootstrapCredentials } from '../bootstrap-client';
import { startEmbeddedPostgres, type RunningPostgres } from './postgres';
import { freePort, isPortFree } from './ports';
import { runNodeProcess, type ManagedProcess } from './processes';
import { ensureTemporalCli, startTemporalDevServer, waitForTemporal, waitForWorkerPolling, type RunningTemporal } from './temporal';
import { loadConfig } from '../../lib/config';

export interface PlatformOptions {
  dataDir: string;
  env: NodeJS.ProcessEnv;
  apiPort: number;
  postgresPort: number;
  temporalPort: number;
  /** Web UI port; undefined runs the dev server headless. */
  temporalUiPort?: number;
  /** The worker's `/metrics` port and its Temporal SDK exporter's (WORKER_METRICS_PORT, TEMPORAL_METRICS_PORT); free ones when undefined. */
  workerMetricsPort?: number;
  temporalMetricsPort?: number;
  /** Keep Temporal's state in a SQLite file under dataDir (survives restarts) or in memory. */
  temporalSqlite: boolean;
  persistentPostgres: boolean;
  log: (part: string, line: string) => void;
  /** Aborting (Ctrl-C during start-up) stops whatever has started so far and rejects. */
  signal?: AbortSignal;
}

export interface RunningPlatform {
  apiUrl: string;
  databaseUrl: string;
  temporalAddress: string;
  temporalUiUrl?: string;
  /** The worker's Prometheus endpoints: the platform's metrics, and the Temporal SDK's (empty when turned off). */
  workerMetricsUrl: string;
  temporalMetricsUrl: string;
  credentials: BootstrapCredentials;
  env: NodeJS.ProcessEnv;
  api: ManagedProcess;
  worker: ManagedProcess;
  postgres?: RunningPostgres;
  temporal?: RunningTemporal;
  stop(): Promise<void>;
}

async function assertPortsFree(ports: Array<[string, number]>): Promise<void> {
  for (const [what, port] of ports) {
    if (!(await isPortFree(port))) {
      throw new Error(`port ${port} for the ${what} is already in use: is another \`npm start\` running? Stop it or choose another port.`);
    }
  }
}

/** Polls the API's health check until it answers 200 (every part up), or throws after `timeoutMs`. */
export async function waitForHealthy(url: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    try {
      const response = await fetch(`${url}/_healthcheck`, { signal: AbortSignal.timeout(3000) });
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(`the API at ${url} did not become healthy within ${timeoutMs} ms`);
}

/**
 * Starts the whole platform: embedded PostgreSQL unless DATABASE_URL is set, the Temporal dev server unless
 * TEMPORAL_ADDRESS is set, migrations, the bootstrap client, then the worker and API processes. `stop()` undoes all of
 * it in reverse order; whatever started before a failure is stopped too.
 */
export async function startPlatform(options: PlatformOptions): Promise<RunningPlatform> {
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((error) => options.log('supervisor', `stop failed: ${error}`));
  };
  try {
    fs.mkdirSync(options.dataDir, { recursive: true });
    await assertPortsFree([
      ['API (PORT)', options.apiPort],
      ...(options.env.DATABASE_URL ? [] : [['embedded PostgreSQL (EMBEDDED_POSTGRES_PORT)', options.postgresPort] as [string, number]]),
      ...(options.env.TEMPORAL_ADDRESS ? [] : [['Temporal (TEMPORAL_PORT)', options.temporalPort] as [string, number]]),
      ...(options.env.TEMPORAL_ADDRESS || !options.temporalUiPort
        ? []
        : [['Temporal UI (TEMPORAL_UI_PORT)', options.temporalUiPort] as [string, number]]),
      ...(options.workerMetricsPort ? [['worker metrics (WORKER_METRICS_PORT)', options.workerMetricsPort] as [string, number]] : []),
      ...(options.temporalMetricsPort ? [['Temporal SDK metrics (TEMPORAL_METRICS_PORT)', options.temporalMetricsPort] as [string, number]] : []),
    ]);
    // allSettled, not all: when one part fails to start, the other may still be starting and must be stopped too.
    const [pgResult, temporalResult] = await Promise.allSettled([
      options.env.DATABASE_URL
        ? Promise.resolve(undefined)
        : startEmbeddedPostgres({
            dataDir: options.dataDir,
            port: options.postgresPort,
            persistent: options.persistentPostgres,
            log: (line) => options.log('postgres', line),
          }).then((pg) => (stops.push(pg.stop), pg)),
      options.env.TEMPORAL_ADDRESS
        ? waitForTemporal(options.env.TEMPORAL_ADDRESS, undefined, 30_000).then(() => undefined)
        : ensureTemporalCli((line) => options.log('temporal', line))
            .then((cli) =>
              startTemporalDevServer({
                cli,
                port: options.temporalPort,
                uiPort: options.temporalUiPort,
                dbFile: options.temporalSqlite ? path.join(options.dataDir, 'temporal.sqlite') : undefined,
                namespace: options.env.TEMPORAL_NAMESPACE || 'default',
                log: (line) => options.log('temporal', line),
              }),
            )
            .then((t) => (stops.push(t.stop), t)),
    ]);
    for (const result of [pgResult, temporalResult]) if (result.status === 'rejected') throw result.reason;
    const postgres = pgResult.status === 'fulfilled' ? pgResult.value : undefined;
    const temporal = temporalResult.status === 'fulfilled' ? temporalResult.value : undefined;
    options.signal?.throwIfAborted();
    const databaseUrl = options.env.DATABASE_URL || (postgres as RunningPostgres).url;
    const temporalAddress = options.env.TEMPORAL_ADDRESS || (temporal as RunningTemporal).address;

    const db = createDb(databaseUrl, { poolMax: 2 });
    let credentials: BootstrapCredentials;
    try {
      const applied = await migrateLatest(db);
      if (applied.length) options.log('supervisor', `migrations applied: ${applied.join(', ')}`);
      credentials = await ensureBootstrapClient(db, options.dataDir, options.env);
    } finally {
      await db.destroy();
    }

    options.signal?.throwIfAborted();
    const apiUrl = `http://127.0.0.1:${options.apiPort}`;
    const workerMetricsPort = options.workerMetricsPort ?? (await freePort());
    const temporalMetricsPort = options.temporalMetricsPort ?? (await freePort());
    const env: NodeJS.ProcessEnv = {
      ...options.env,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      DATA_DIR: options.dataDir,
      PORT: String(options.apiPort),
      HOST: options.env.HOST || '127.0.0.1',
      PUBLIC_URL: options.env.PUBLIC_URL || apiUrl,
      WORKER_METRICS_PORT: String(workerMetricsPort),
      TEMPORAL_METRICS_PORT: String(temporalMetricsPort),
    };
    const output = (name: string, line: string) => options.log(name, line);
    const worker = runNodeProcess({ name: 'worker', entry: 'activities/worker.ts', env, output });
    stops.push(() => worker.stop());
    const api = runNodeProcess({ name: 'api', entry: 'api/server.ts', env, output });
    stops.push(() => api.stop());
    // Generous: on a loaded machine the worker bundles the workflow code for minutes; this only bounds a failure.
    await waitForHealthy(apiUrl, 300_000, options.signal);
    const settings = loadConfig(env);
    const metricsUrl = (port: number) =>
      port > 0 ? `http://${settings.metricsHost.includes(':') ? `[${settings.metricsHost}]` : settings.metricsHost}:${port}/metrics` : '';
    await waitForWorkerPolling(temporalAddress, settings.temporalNamespace, settings.taskQueue, 60_000, options.signal);

    return {
      apiUrl,
      databaseUrl,
      temporalAddress,
      temporalUiUrl: temporal?.uiUrl,
      workerMetricsUrl: metricsUrl(workerMetricsPort),
      temporalMetricsUrl: metricsUrl(temporalMetricsPort),
      credentials,
      env,
      api,
      worker,
      postgres,
      temporal,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * A throw-away platform (tests, fuzzer, replay recorder, benchmarks): free 127.0.0.1 ports, an in-memory Temporal dev
 * server, an embedded PostgreSQL that is not kept, logs appended to <dataDir>/platform.log. `dataDir` defaults to a
 * new temporary directory named after `purpose`.
 */
export async function startThrowawayPlatform(options: {
  purpose: string;
  env: NodeJS.ProcessEnv;
  dataDir?: string;
}): Promise<RunningPlatform & { dataDir: string }> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), `platform-${options.purpose}-`));
  // Embedded PostgreSQL runs as its own user when we are root: it must be able to enter the directory.
  fs.chmodSync(dataDir, 0o755);
  const logFile = fs.openSync(path.join(dataDir, 'platform.log'), 'a');
  // A free port can be taken by another process (a parallel test run) between our probe and the server's bind; that
  // race is retried on new ports a few times, and any other failure is not.
  for (let attempt = 1; ; attempt += 1) {
    try {
      const platform = await startPlatform({
        dataDir,
        env: options.env,
        apiPort: await freePort(),
        postgresPort: await freePort(),
        temporalPort: await freePort(),
        temporalSqlite: false,
        persistentPostgres: false,
        log: (part, line) => fs.writeSync(logFile, `${part.padEnd(10)}| ${line}\n`),
      });
      return { ...platform, dataDir };
    } catch (error) {
      if (attempt >= 3 || !/already in use/i.test(String(error))) throw error;
      fs.writeSync(logFile, `supervisor | a port was taken while starting (${String(error).split('\n')[0]}); retrying on new ports\n`);
    }
  }
}
