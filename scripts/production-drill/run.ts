import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb } from '../../db/knex';
import { stringifyJson } from '../../lib/json';
import { startReceiver } from '../../test/support/webhook-receiver';
import { ensureBootstrapClient } from '../bootstrap-client';
import { DrillClient, sleep, waitUntil } from '../drills/client';
import { freePort } from '../stack/ports';
import { startEmbeddedPostgres, type RunningPostgres } from '../stack/postgres';
import { ensureTemporalCli, stopChild } from '../stack/temporal';
import { checkEverything } from './checks';
import { MixedLoad, errorsBetween, isSuccess, rate, waitForRecovery } from './load';
import { checkRequestTrace, ensureObservabilityBinaries, startJaeger, startVictoriaMetrics, type RunningScraper } from './observability';
import { startRoundRobinProxy } from './proxy';
import {
  ensureTemporalServerBinaries,
  registerNamespaceAndSearchAttributes,
  setupTemporalSchemas,
  startTemporalServer,
  type TemporalServer,
} from './temporal-server';
import { DRILL_ONLY_ENVIRONMENT, PLATFORM_SERVICES, type PlatformService } from './topology';

const ROOT = path.resolve(__dirname, '..', '..');
const PG = { user: 'postgres', password: 'postgres' };

/** One replica of a compose service, started from dist/ with the compose command and only the compose variables. */
class Replica {
  private child?: ChildProcess;
  constructor(
    readonly name: string,
    private readonly service: PlatformService,
    private readonly env: Record<string, string>,
    private readonly log: (name: string, line: string) => void,
  ) {}

  start(): ChildProcess {
    const [node, ...args] = this.service.command;
    if (node !== 'node') throw new Error(`${this.name}: only node commands are run without Docker`);
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const forward = (chunk: Buffer) =>
      chunk
        .toString()
        .split('\n')
        .filter(Boolean)
        .forEach((line) => this.log(this.name, line));
    child.stdout?.on('data', forward);
    child.stderr?.on('data', forward);
    child.once('exit', (code, signal) => this.log(this.name, `exited (code ${code}, signal ${signal})`));
    this.child = child;
    return child;
  }

  async kill(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }

  stop(): Promise<void> {
    return this.child ? stopChild(this.child, 10_000) : Promise.resolve();
  }

  /** Resolves with the exit code (the one-shot migration job). */
  done(): Promise<number | null> {
    const child = this.child!;
    if (child.exitCode !== null) return Promise.resolve(child.exitCode);
    return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }
}

async function healthy(url: string, timeoutMs: number): Promise<void> {
  await waitUntil(
    `${url} healthy`,
    () =>
      fetch(`${url}/_healthcheck`, { signal: AbortSignal.timeout(2000) }).then(
        (r) => r.status === 200,
        () => false,
      ),
    timeoutMs,
    200,
  );
}

function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = Date.now();
  return work().then((value) => [value, (Date.now() - started) / 1000]);
}

/** Each replica's token tried on every replica (the load balancer sends a client's requests to either). */
async function tokensRefusedAcrossReplicas(ports: number[], credentials: { clientId: string; clientSecret: string }): Promise<string[]> {
  const refused: string[] = [];
  for (const issuer of ports) {
    const token = await fetch(`http://127.0.0.1:${issuer}/api/auth/oauth/token`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    }).then((r) => r.text());
    const accessToken = /"access_token":"([^"]+)"/.exec(token)?.[1];
    if (!accessToken) {
      refused.push(`no token from :${issuer}`);
      continue;
    }
    for (const verifier of ports) {
      const answer = await fetch(`http://127.0.0.1:${verifier}/api/auth/clients`, { headers: { Authorization: `Bearer ${accessToken}` } });
      if (answer.status !== 200)
        refused.push(`a token issued by :${issuer} answered ${answer.status} on :${verifier}: ${(await answer.text()).slice(0, 120)}`);
    }
  }
  return refused;
}

/** Ledger writes of the metrics check, sent 4 at a time before the mixed load starts. */
const METRICS_LOAD = 200;

/**
 * Sends METRICS_LOAD ledger writes through the load balancer with nothing else running, and checks what the scraper
 * (scraping every API and worker each second) saw move: the APIs' HTTP counter and duration count of the write
 * route by exactly the writes acknowledged, their group commits by at least as many writes in at most as many
 * batches, and the workers' event batches by at least one event per write.
 */
async function checkMetricsMoveWithLoad(
  client: DrillClient,
  scraper: RunningScraper,
  ledger: string,
  figures: Record<string, string>,
): Promise<string[]> {
  const writes = `{job="api",method="POST",route=~".+/ledger/v2/.+/transactions",status=~"2.."}`;
  const queries = {
    http: `sum(http_requests_total${writes})`,
    durations: `sum(http_request_duration_seconds_count${writes})`,
    committed: 'sum(ledger_group_commit_batch_size_sum{job="api"})',
    batches: 'sum(ledger_group_commit_batch_size_count{job="api"})',
    events: 'sum(events_batch_size_sum{job="worker"})',
  };
  type Figures = Record<keyof typeof queries, number>;
  const read = async (): Promise<Figures> =>
    Object.fromEntries(await Promise.all(Object.entries(queries).map(async ([k, q]) => [k, await scraper.value(q)]))) as Figures;
  // Scraped every second: after 3 s the figures include every request sent so far.
  await sleep(3000);
  const before = await read();
  let acknowledged = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let i = next++; i < METRICS_LOAD; i = next++) {
        const body = { postings: [{ source: 'world', destination: `metrics:${i}`, amount: 1, asset: 'USD/2' }], reference: `metrics-${i}` };
        const answer = await client.call('POST', `/api/ledger/v2/${ledger}/transactions`, body, 20_000, { 'Idempotency-Key': `metrics-${i}` });
        if (isSuccess(answer.status)) acknowledged += 1;
      }
    }),
  );
  let after = before;
  await waitUntil(
    'the scraped figures to include the writes',
    async () => {
      after = await read();
      return after.http - before.http >= acknowledged && after.events - before.events >= acknowledged;
    },
    30_000,
    500,
  ).catch(() => undefined);
  const moved = Object.fromEntries(Object.keys(queries).map((k) => [k, after[k as keyof Figures] - before[k as keyof Figures]])) as Figures;
  figures['metrics moved (VictoriaMetrics)'] =
    `${acknowledged}/${METRICS_LOAD} writes acknowledged; http_requests_total +${moved.http}, duration count +${moved.durations}, ` +
    `group-commit writes +${moved.committed} in ${moved.batches} batches, events batched +${moved.events}`;
  const problems: string[] = [];
  if (acknowledged !== METRICS_LOAD) problems.push(`metrics load: ${METRICS_LOAD - acknowledged} of ${METRICS_LOAD} writes not acknowledged`);
  if (moved.http !== acknowledged) problems.push(`http_requests_total of the write route moved by ${moved.http}, not ${acknowledged}`);
  if (moved.durations !== acknowledged)
    problems.push(`http_request_duration_seconds_count of the write route moved by ${moved.durations}, not ${acknowledged}`);
  if (moved.committed < acknowledged)
    problems.push(`ledger_group_commit_batch_size_sum moved by ${moved.committed}, fewer than ${acknowledged} writes`);
  if (moved.batches < 1 || moved.batches > moved.committed) problems.push(`ledger_group_commit_batch_size_count moved by ${moved.batches}`);
  if (moved.events < acknowledged) problems.push(`events_batch_size_sum moved by ${moved.events}, fewer than ${acknowledged} events`);
  return problems;
}

interface FaultRow {
  fault: string;
  before: number;
  during: number;
  after: number;
  errors: string;
  recoverSeconds?: number;
}

/**
 * `npm run drill:production`: docker-compose.yml's topology assembled from real parts without Docker, on 127.0.0.1:
 * PostgreSQL as its own server, a Temporal server (built from source, schemas by temporal-sql-tool) on it, the
 * migration job, two APIs behind a round-robin load balancer and two workers from dist/, exactly as compose starts
 * them. Under steady mixed load it kills a worker, then an API (kill -9, restarted), restarts Temporal, then
 * PostgreSQL, and checks that nothing acknowledged was lost or doubled. Exit code 0 only when every check passes.
 */
async function main(): Promise<void> {
  const started = Date.now();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-production-drill-'));
  fs.chmodSync(dataDir, 0o755);
  const logFile = fs.openSync(path.join(dataDir, 'drill.log'), 'a');
  const log = (part: string, line: string) => fs.writeSync(logFile, `${part.padEnd(10)}| ${line}\n`);
  const say = (line: string) => process.stdout.write(`[drill:production] ${line}\n`);
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch((error) => log('drill', `stop failed: ${error}`));
  };
  let interrupted = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      interrupted = true;
      say(`${signal}: stopping everything`);
      void stopAll().then(() => process.exit(130));
    });
  }
  const problems: string[] = [];
  const rows: FaultRow[] = [];
  const figures: Record<string, string> = {};
  try {
    say(`logs: ${dataDir}/drill.log`);
    const [binaries] = await timed(() => ensureTemporalServerBinaries((line) => say(line)));
    figures['Temporal server build'] = binaries.builtInSeconds ? `${binaries.builtInSeconds} s` : 'cached';
    const observabilityBinaries = await ensureObservabilityBinaries((line) => say(line));
    figures['Jaeger and VictoriaMetrics (setup-observability.sh)'] = `${observabilityBinaries.seconds} s`;
    const [, buildSeconds] = await timed(
      () =>
        new Promise<void>((resolve, reject) => {
          const build = spawn('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
          build.stdout?.on('data', (chunk: Buffer) => log('build', chunk.toString()));
          build.stderr?.on('data', (chunk: Buffer) => log('build', chunk.toString()));
          build.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`npm run build failed (${code}); see the log`))));
        }),
    );
    figures['npm run build'] = `${buildSeconds.toFixed(0)} s`;

    const topologyStarted = Date.now();
    const pgPort = await freePort();
    const postgres: RunningPostgres = await startEmbeddedPostgres({ dataDir, port: pgPort, persistent: true, log: (line) => log('postgres', line) });
    stops.push(() => postgres.stop());
    const databaseUrl = postgres.url;
    await setupTemporalSchemas(binaries, { port: pgPort, ...PG });
    const temporal: TemporalServer = await startTemporalServer({
      binaries,
      dir: path.join(dataDir, 'temporal'),
      postgres: { port: pgPort, ...PG },
      log: (line) => log('temporal', line),
    });
    stops.push(() => temporal.stop());
    const jaeger = await startJaeger(observabilityBinaries.jaeger, path.join(dataDir, 'jaeger'), (line) => log('jaeger', line));
    stops.push(() => jaeger.stop());
    const cli = await ensureTemporalCli();
    await registerNamespaceAndSearchAttributes(cli, temporal.address, 'default');
    say(`PostgreSQL on :${pgPort}, Temporal server ${temporal.address} (namespace default, search attributes registered)`);

    const spec = (name: PlatformService['service']) => PLATFORM_SERVICES.find((s) => s.service === name)!;
    const migrate = new Replica('migrate', spec('migrate'), { DATABASE_URL: databaseUrl }, log);
    migrate.start();
    if ((await migrate.done()) !== 0) throw new Error('the migration job failed; see the log');
    const setupDb = createDb(databaseUrl, { poolMax: 2 });
    const credentials = await ensureBootstrapClient(setupDb, dataDir, {}).finally(() => setupDb.destroy());

    const apiPorts = await Promise.all(spec('api').replicas > 0 ? Array.from({ length: spec('api').replicas }, () => freePort()) : []);
    const proxy = await startRoundRobinProxy(apiPorts.map((port) => () => port));
    stops.push(() => proxy.close());
    const common = {
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      LOG_LEVEL: 'warn',
      OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
      ...DRILL_ONLY_ENVIRONMENT,
    };
    // Compose gives each worker its own container, so the default metrics ports do not collide; here they share a host.
    const workerPorts = await Promise.all(
      Array.from({ length: spec('worker').replicas }, async () => ({ metrics: await freePort(), temporal: await freePort() })),
    );
    const workers = workerPorts.map(
      (ports, i) =>
        new Replica(
          `worker-${i + 1}`,
          spec('worker'),
          { ...common, METRICS_HOST: '127.0.0.1', WORKER_METRICS_PORT: String(ports.metrics), TEMPORAL_METRICS_PORT: String(ports.temporal) },
          log,
        ),
    );
    const scraper = await startVictoriaMetrics(
      observabilityBinaries.victoriaMetrics,
      path.join(dataDir, 'victoria-metrics'),
      { api: apiPorts.map((port) => `127.0.0.1:${port}`), worker: workerPorts.flatMap((p) => [`127.0.0.1:${p.metrics}`, `127.0.0.1:${p.temporal}`]) },
      (line) => log('vmetrics', line),
    );
    stops.push(() => scraper.stop());
    // PUBLIC_URL is the load balancer's: a token issued by one API names it as issuer and audience, so the other accepts it.
    const apis = apiPorts.map(
      (port, i) => new Replica(`api-${i + 1}`, spec('api'), { ...common, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: proxy.url }, log),
    );
    for (const replica of [...workers, ...apis]) {
      replica.start();
      stops.push(() => replica.stop());
    }
    await Promise.all(apiPorts.map((port) => healthy(`http://127.0.0.1:${port}`, 90_000)));
    // Compose starts the API replicas together, as here: a token one replica issues must be accepted by the other.
    const refused = await tokensRefusedAcrossReplicas(apiPorts, credentials);
    if (refused.length) {
      problems.push(...refused.map((line) => `first start of the replicas together: ${line}`));
      say(`replicas started together refuse each other's tokens (${refused.length} cases); restarting both APIs to go on with the drill`);
      for (const api of apis) {
        await api.stop();
        api.start();
      }
      await Promise.all(apiPorts.map((port) => healthy(`http://127.0.0.1:${port}`, 90_000)));
      const still = await tokensRefusedAcrossReplicas(apiPorts, credentials);
      if (still.length) throw new Error(`replicas still refuse each other's tokens after a restart: ${still.join('; ')}`);
    }
    figures['topology up (PostgreSQL to healthy APIs)'] = `${((Date.now() - topologyStarted) / 1000).toFixed(1)} s`;
    say(`2 APIs behind ${proxy.url}, 2 workers; topology up in ${figures['topology up (PostgreSQL to healthy APIs)']}`);

    const client = new DrillClient(proxy.url, credentials.clientId, credentials.clientSecret);
    const db = createDb(databaseUrl, { poolMax: 3 });
    stops.push(() => db.destroy());
    const receiver = await startReceiver();
    stops.push(() => receiver.close());
    const ledger = `prod-drill-${Date.now().toString(36)}`;
    const outboxStart = (await db('events_outbox').max('seq as seq').first())?.seq ?? 0;
    const config = await client.must('POST', '/api/webhooks/configs', { endpoint: receiver.url, eventTypes: ['ledger.committed_transactions'] });
    await client.must('POST', `/api/ledger/v2/${ledger}`);
    const wallet = await client.must('POST', '/api/wallets/wallets', { name: `${ledger}-wallet`, metadata: {} });
    await client.must('POST', `/api/wallets/wallets/${wallet.data.id}/credit`, { amount: { asset: 'USD/2', amount: 100_000_000 } });
    const workflow = await client.must('POST', '/api/orchestration/v2/workflows', {
      name: `${ledger}-workflow`,
      stages: [
        {
          send: {
            source: { account: { id: 'world', ledger } },
            destination: { account: { id: 'runs:${n}', ledger } },
            amount: { asset: 'USD/2', amount: 1 },
            metadata: { run: '${n}' },
          },
        },
      ],
    });

    // Observability, before any fault: one traced request's spans in Jaeger, and the scraped metrics moved by a known load.
    const traceId = randomBytes(16).toString('hex');
    const traced = await client.call('POST', `/api/orchestration/v2/workflows/${workflow.data.id}/instances?wait=true`, { n: 'traced' }, 70_000, {
      traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
    });
    if (traced.status !== 200) problems.push(`the traced orchestration run answered ${traced.status}`);
    const trace = await checkRequestTrace(jaeger, traceId);
    problems.push(...trace.problems);
    figures['traced run (Jaeger)'] = trace.summary;
    say(`traced run ${traceId}: ${trace.summary}${trace.problems.length ? ` — ${trace.problems.join('; ')}` : ''}`);
    const metricProblems = await checkMetricsMoveWithLoad(client, scraper, ledger, figures);
    problems.push(...metricProblems);
    say(
      `metrics after ${METRICS_LOAD} writes: ${figures['metrics moved (VictoriaMetrics)']}${metricProblems.length ? ` — ${metricProblems.join('; ')}` : ''}`,
    );

    const load = new MixedLoad(client, { ledger, walletId: wallet.data.id, workflowId: workflow.data.id });
    load.start();
    say('steady mixed load: 3 ledger writers, 1 wallet holder (hold + confirm), 2 orchestration runners (wait=true), webhooks to a local receiver');
    await sleep(10_000);
    let windowStart = Date.now() - 10_000;
    const faults: Array<[string, () => Promise<void>]> = [
      [
        'kill -9 worker-1, restarted 3 s later',
        async () => {
          await workers[0].kill('SIGKILL');
          await sleep(3000);
          workers[0].start();
        },
      ],
      [
        'kill -9 api-1, restarted 3 s later',
        async () => {
          await apis[0].kill('SIGKILL');
          await sleep(3000);
          apis[0].start();
          await healthy(`http://127.0.0.1:${apiPorts[0]}`, 60_000);
        },
      ],
      [
        'Temporal server restart',
        async () => {
          await temporal.stop();
          await temporal.start();
        },
      ],
      [
        'PostgreSQL restart',
        async () => {
          await postgres.stop();
          await postgres.start();
        },
      ],
    ];
    for (const [fault, inject] of faults) {
      if (interrupted) break;
      const faultAt = Date.now();
      const before = rate(load.samples, windowStart, faultAt);
      say(`${fault} (load before: ${before.toFixed(1)} req/s)`);
      await inject();
      const removedAt = Date.now();
      const recoveredAt = await waitForRecovery(load.samples, before, removedAt, 180_000);
      const end = recoveredAt ?? Date.now();
      if (recoveredAt === undefined) problems.push(`${fault}: the load did not recover within 180 s`);
      await sleep(10_000);
      const afterEnd = Date.now();
      const errors = [...errorsBetween(load.samples, faultAt, afterEnd)]
        .sort(([a], [b]) => a - b)
        .map(([status, count]) => `${status === 0 ? 'no answer' : status}×${count}`)
        .join(', ');
      const row = {
        fault,
        before,
        during: rate(load.samples, faultAt, end),
        after: rate(load.samples, end, afterEnd),
        errors: errors || 'none',
        recoverSeconds: recoveredAt === undefined ? undefined : (recoveredAt - faultAt) / 1000,
      };
      rows.push(row);
      say(
        `  recovered in ${row.recoverSeconds?.toFixed(1) ?? '∞'} s; during ${row.during.toFixed(1)} req/s, after ${row.after.toFixed(1)} req/s; client errors: ${row.errors}`,
      );
      windowStart = end;
    }
    await load.stop();
    say(`load stopped: ${load.samples.length} requests, ${load.samples.filter((s) => !isSuccess(s.status)).length} failed; checking`);
    problems.push(
      ...(await checkEverything(db, load, {
        ledger,
        workflowId: workflow.data.id,
        configId: config.data.id,
        outboxStart: Number(outboxStart),
        receiverIds: () => receiver.received.map((r) => String(r.headers['webhook-id'])),
        temporalAddress: temporal.address,
      })),
    );
  } catch (error) {
    problems.push(`drill failed: ${error instanceof Error ? error.stack : String(error)}`);
  } finally {
    await stopAll();
  }
  figures['whole run'] = `${((Date.now() - started) / 1000).toFixed(0)} s`;
  const f = (n: number) => n.toFixed(1);
  process.stdout.write('\n| Fault | Load before (req/s) | During | After | Errors seen by clients | Time to recover |\n|---|---|---|---|---|---|\n');
  for (const r of rows)
    process.stdout.write(
      `| ${r.fault} | ${f(r.before)} | ${f(r.during)} | ${f(r.after)} | ${r.errors} | ${r.recoverSeconds === undefined ? 'not recovered' : `${f(r.recoverSeconds)} s`} |\n`,
    );
  process.stdout.write(
    `\n${Object.entries(figures)
      .map(([k, v]) => `${k}: ${v}`)
      .join('; ')}\n`,
  );
  const out = path.join(ROOT, 'bench', 'results', 'production-drill.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(
    out,
    stringifyJson({
      date: new Date().toISOString(),
      machine: `${os.cpus().length} vCPU ${os.cpus()[0]?.model ?? ''}, Node ${process.version}`,
      rows,
      figures,
      problems,
    }),
  );
  if (problems.length) {
    say(`FAIL: ${problems.length} problem(s)`);
    for (const p of problems.slice(0, 30)) say(`  ${p}`);
  } else {
    say('PASS: every check held');
    if (!process.env.KEEP_DRILL_DATA) fs.rmSync(dataDir, { recursive: true, force: true });
  }
  process.exit(problems.length ? 1 : 0);
}

main().catch((error) => {
  console.error(`drill:production failed: ${error instanceof Error ? error.stack : error}`);
  process.exit(1);
});
