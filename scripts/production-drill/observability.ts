import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { waitUntil } from '../drills/client';
import { freePort } from '../stack/ports';
import { stopChild } from '../stack/temporal';

const ROOT = path.resolve(__dirname, '..', '..');
const run = promisify(execFile);

export interface ObservabilityBinaries {
  jaeger: string;
  victoriaMetrics: string;
  /** Seconds spent finding or building them (a few when cached). */
  seconds: number;
}

/**
 * The trace store and the scraper the drill exports to, from scripts/setup-observability.sh: Jaeger v2 (compose's
 * `jaeger`, an OTLP receiver with an in-memory store and Jaeger's query API) and VictoriaMetrics single-node in place
 * of compose's Prometheus (the same scrape configuration and PromQL; it builds from its Go module in two minutes, where
 * Prometheus' own server module does not build with `go install`). Built once and cached in .tools/bin.
 */
export async function ensureObservabilityBinaries(log: (line: string) => void): Promise<ObservabilityBinaries> {
  const started = Date.now();
  const setup = async (tool: string) => {
    log(`${tool}: scripts/setup-observability.sh ${tool} (a cold build of jaeger takes 10-20 minutes)`);
    const { stdout } = await run('bash', [path.join(ROOT, 'scripts', 'setup-observability.sh'), tool], { maxBuffer: 64 << 20 });
    return stdout.trim();
  };
  const jaeger = await setup('jaeger');
  const victoriaMetrics = await setup('victoria-metrics');
  return { jaeger, victoriaMetrics, seconds: Math.round((Date.now() - started) / 1000) };
}

async function startProcess(binary: string, args: string[], name: string, log: (line: string) => void): Promise<ChildProcess> {
  const child = spawn(binary, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const forward = (chunk: Buffer) =>
    chunk
      .toString()
      .split('\n')
      .filter(Boolean)
      .forEach((line) => log(line));
  child.stdout?.on('data', forward);
  child.stderr?.on('data', forward);
  child.once('exit', (code, signal) => log(`${name} exited (code ${code}, signal ${signal})`));
  return child;
}

const answers = (url: string) => () =>
  fetch(url, { signal: AbortSignal.timeout(2000) }).then(
    (r) => r.status === 200,
    () => false,
  );

export interface RunningJaeger {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT points at (OTLP over HTTP). */
  otlpEndpoint: string;
  queryUrl: string;
  stop(): Promise<void>;
}

/** Jaeger v2 on free 127.0.0.1 ports: OTLP/HTTP in, spans kept in memory, the query API (and UI) out. */
export async function startJaeger(binary: string, dir: string, log: (line: string) => void): Promise<RunningJaeger> {
  const [otlp, http, grpc] = [await freePort(), await freePort(), await freePort()];
  fs.mkdirSync(dir, { recursive: true });
  const config = path.join(dir, 'jaeger.yaml');
  fs.writeFileSync(
    config,
    `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    traces:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 200000
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${http}
    grpc:
      endpoint: 127.0.0.1:${grpc}
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${otlp}
processors:
  batch:
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`,
  );
  const child = await startProcess(binary, ['--config', config], 'jaeger', log);
  const queryUrl = `http://127.0.0.1:${http}`;
  try {
    await waitUntil('Jaeger query API answering', answers(`${queryUrl}/api/services`), 60_000, 250);
  } catch (error) {
    await stopChild(child, 5000);
    throw error;
  }
  return { otlpEndpoint: `http://127.0.0.1:${otlp}`, queryUrl, stop: () => stopChild(child, 10_000) };
}

export interface RunningScraper {
  url: string;
  /** The value of an instant PromQL query that answers one series (a `sum(…)`); 0 when it answers none. */
  value(query: string): Promise<number>;
  stop(): Promise<void>;
}

/**
 * VictoriaMetrics single-node scraping the given Prometheus-format targets every second, as deploy/prometheus.yml
 * scrapes the platform (jobs `api` and `worker`). -search.latencyOffset=0s: a query sees a sample as soon as it is
 * stored, not 30 s later, so the drill reads the load's effect at once.
 */
export async function startVictoriaMetrics(
  binary: string,
  dir: string,
  targets: { api: string[]; worker: string[] },
  log: (line: string) => void,
): Promise<RunningScraper> {
  const port = await freePort();
  fs.mkdirSync(dir, { recursive: true });
  const config = path.join(dir, 'scrape.yml');
  const job = (name: string, hosts: string[]) =>
    `  - job_name: ${name}\n    static_configs:\n      - targets: [${hosts.map((h) => `'${h}'`).join(', ')}]\n`;
  fs.writeFileSync(config, `global:\n  scrape_interval: 1s\nscrape_configs:\n${job('api', targets.api)}${job('worker', targets.worker)}`);
  const child = await startProcess(
    binary,
    [
      `-httpListenAddr=127.0.0.1:${port}`,
      `-storageDataPath=${path.join(dir, 'data')}`,
      `-promscrape.config=${config}`,
      '-search.latencyOffset=0s',
      '-search.disableCache',
      '-retentionPeriod=1d',
      '-loggerLevel=WARN',
    ],
    'victoria-metrics',
    log,
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntil('VictoriaMetrics answering', answers(`${url}/health`), 60_000, 250);
  } catch (error) {
    await stopChild(child, 5000);
    throw error;
  }
  return {
    url,
    async value(query) {
      const answer = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query })}`);
      const body = (await answer.json()) as { status: string; error?: string; data?: { result: Array<{ value: [number, string] }> } };
      if (body.status !== 'success') throw new Error(`PromQL ${query}: ${body.error ?? answer.status}`);
      const result = body.data?.result ?? [];
      if (result.length > 1) throw new Error(`PromQL ${query}: ${result.length} series, expected one`);
      return result.length ? Number(result[0].value[1]) : 0;
    },
    stop: () => stopChild(child, 10_000),
  };
}

interface JaegerSpan {
  spanID: string;
  operationName: string;
  processID: string;
  tags: Array<{ key: string; value: unknown }>;
}

/**
 * Problems with one request's trace as Jaeger stores it (empty when it holds what it must): the API's server span,
 * the API's StartWorkflow span, the worker's RunWorkflow and RunActivity spans, and SQL spans (pg) from both. Waits
 * (bounded) for the exporters' batches to arrive.
 */
export async function checkRequestTrace(
  jaeger: RunningJaeger,
  traceId: string,
  timeoutMs = 60_000,
): Promise<{ problems: string[]; summary: string }> {
  const expectations: Array<[string, (span: JaegerSpan, service: string) => boolean]> = [
    [
      'the API server span (HTTP)',
      (s, service) => service === 'financial-platform-api' && s.tags.some((t) => t.key === 'span.kind' && t.value === 'server'),
    ],
    ['StartWorkflow (API)', (s, service) => service === 'financial-platform-api' && s.operationName.startsWith('StartWorkflow:')],
    ['RunWorkflow (worker)', (s, service) => service === 'financial-platform-worker' && s.operationName.startsWith('RunWorkflow:')],
    ['RunActivity (worker)', (s, service) => service === 'financial-platform-worker' && s.operationName.startsWith('RunActivity:')],
    [
      'SQL in the API (pg)',
      (s, service) => service === 'financial-platform-api' && s.tags.some((t) => t.key === 'db.system' && t.value === 'postgresql'),
    ],
    [
      'SQL in the worker (pg)',
      (s, service) => service === 'financial-platform-worker' && s.tags.some((t) => t.key === 'db.system' && t.value === 'postgresql'),
    ],
  ];
  let spans: Array<[JaegerSpan, string]> = [];
  const missing = () => expectations.filter(([, found]) => !spans.some(([span, service]) => found(span, service))).map(([what]) => what);
  await waitUntil(
    `trace ${traceId} complete in Jaeger`,
    async () => {
      const answer = await fetch(`${jaeger.queryUrl}/api/traces/${traceId}`).catch(() => undefined);
      if (answer?.status !== 200) return false;
      const body = (await answer.json()) as { data?: Array<{ spans: JaegerSpan[]; processes: Record<string, { serviceName: string }> }> };
      spans = (body.data ?? []).flatMap((t) => t.spans.map((s) => [s, t.processes[s.processID]?.serviceName ?? '?'] as [JaegerSpan, string]));
      return missing().length === 0;
    },
    timeoutMs,
    500,
  ).catch(() => undefined);
  const names = new Map<string, number>();
  for (const [span, service] of spans) {
    const key = `${service.replace('financial-platform-', '')}:${span.operationName.split(' ')[0]}`;
    names.set(key, (names.get(key) ?? 0) + 1);
  }
  return {
    problems: missing().map((what) => `trace ${traceId} in Jaeger has no ${what} (${spans.length} spans)`),
    summary: `${spans.length} spans (${[...names].map(([k, n]) => `${k}×${n}`).join(', ')})`,
  };
}
