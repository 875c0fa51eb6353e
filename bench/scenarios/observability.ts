import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Scenario } from '.';
import { freePort } from '../../scripts/stack/ports';
import { waitForHealthy } from '../../scripts/stack/platform';
import { runNodeProcess, type ManagedProcess } from '../../scripts/stack/processes';
import { cpuPerOperation } from '../lib/cpu';
import { authJson, call, pick, settle } from '../lib/helpers';
import { httpLoad } from '../lib/http-load';
import type { BenchPlatform } from '../lib/platform';
import { interleavedRounds } from '../lib/rounds';
import type { Measurement } from '../lib/stats';
import { ASSET, FUNDS, dstAccount, srcAccount } from './ledger/floor';

const ACCOUNTS = 1000;
/** Interleaved rounds per row, each of WRITES × BENCH_SCALE spread writes at 32 clients. */
const ROUNDS = 8;
const WRITES = 750;
/** How often the "on" API's /metrics is scraped during its rounds: Prometheus' common 15 s, shortened so every round sees scrapes. */
const SCRAPE_EVERY_MS = 2000;

/**
 * An OTLP/HTTP receiver on 127.0.0.1 that accepts every export (200, empty body: a valid empty
 * ExportTraceServiceResponse in either encoding) and counts them, so the "on" API pays for serializing and sending its
 * spans as against a collector, and the run can check that spans were in fact exported.
 */
async function startOtlpSink(): Promise<{ url: string; exports: () => number; bytes: () => number; close(): Promise<void> }> {
  let exports = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      if (req.url === '/v1/traces') exports += 1;
      res.writeHead(200, { 'Content-Type': req.headers['content-type'] ?? 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports: () => exports,
    bytes: () => bytes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** An extra API process on the bench platform's database and Temporal, accepting the tokens its API issues. */
async function startApi(platform: BenchPlatform, name: string, extraEnv: Record<string, string>): Promise<{ url: string; process: ManagedProcess }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_SECOND: '0',
    DATABASE_URL: platform.databaseUrl,
    TEMPORAL_ADDRESS: platform.temporalAddress,
    DATA_DIR: platform.dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    // The issuer and audience of the bench's tokens are its API's URL: this process accepts them as a replica would.
    PUBLIC_URL: platform.apiUrl,
    ...extraEnv,
  };
  // Whatever the shell exported, each row's tracing is only what extraEnv says.
  for (const key of Object.keys(env)) if (key.startsWith('OTEL_') && !(key in extraEnv)) delete env[key];
  const api = runNodeProcess({ name, entry: 'api/server.ts', env, output: () => undefined });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealthy(url, 90_000);
  } catch (error) {
    await api.stop();
    throw error;
  }
  return { url, process: api };
}

/**
 * What tracing and metrics cost ledger writers: two API processes side by side on the bench stack, one with tracing
 * exporting over OTLP/HTTP (protobuf) to a local receiver and `/metrics` served and scraped every 2 s, one with
 * neither (OTEL_* unset, API_METRICS=off); spread writes at 32 clients against each in interleaved rounds. The
 * metric counters themselves are always kept in memory (they cannot be turned off); "off" saves their scrapes.
 * The worker, shared by both, traces in neither row: the write path is the API's.
 */
export const observabilityScenario: Scenario = {
  name: 'observability',
  async run(platform, scale) {
    const ledger = `bench-obs-${Date.now().toString(36)}`;
    const token = await platform.token();
    await call(platform, token, 'POST', `/api/ledger/v2/${ledger}`);
    const funding = Array.from({ length: ACCOUNTS }, (_, i) => ({
      source: 'world',
      destination: srcAccount(i),
      amount: Number(FUNDS),
      asset: ASSET,
    }));
    for (let i = 0; i < funding.length; i += 500)
      await call(platform, token, 'POST', `/api/ledger/v2/${ledger}/transactions`, { postings: funding.slice(i, i + 500) });

    const sink = await startOtlpSink();
    const started: ManagedProcess[] = [];
    try {
      const on = await startApi(platform, 'api-traced', { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, API_METRICS: 'on' });
      started.push(on.process);
      const off = await startApi(platform, 'api-untraced', { API_METRICS: 'off' });
      started.push(off.process);
      const urls = { on: on.url, off: off.url };
      let scrapes = 0;
      const row = (mode: 'on' | 'off') => `ledger write spread c=32 (HTTP, tracing and metrics ${mode}, ${ROUNDS} interleaved rounds)`;
      const measured = await interleavedRounds(ROUNDS, ['on', 'off'] as const, async (mode) => {
        const scraper =
          mode === 'on'
            ? setInterval(() => {
                void fetch(`${on.url}/metrics`)
                  .then((r) => r.text())
                  .then(
                    () => (scrapes += 1),
                    () => undefined,
                  );
              }, SCRAPE_EVERY_MS)
            : undefined;
        try {
          const round = await httpLoad({
            scenario: row(mode),
            url: `${urls[mode]}/api/ledger/v2/${ledger}/transactions`,
            method: 'POST',
            connections: 32,
            amount: Math.max(32, Math.round(WRITES * scale)),
            headers: authJson(token),
            requestBody: () =>
              JSON.stringify({
                postings: [{ source: srcAccount(pick(ACCOUNTS)), destination: dstAccount(pick(ACCOUNTS)), amount: 1, asset: ASSET }],
              }),
          });
          // Inside the round: its events' dispatch is counted in its CPU, and the next round starts settled.
          await settle(platform);
          return round;
        } finally {
          if (scraper) clearInterval(scraper);
        }
      });
      // The batching exporter sends within a second of a span's end; a row whose spans never left would measure nothing.
      const deadline = Date.now() + 10_000;
      while (sink.exports() === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
      if (sink.exports() === 0) throw new Error('the traced API exported no spans to the local OTLP receiver');
      const ratio = measured.on.measurement.throughput / measured.off.measurement.throughput;
      const results: Measurement[] = [];
      for (const mode of ['off', 'on'] as const) {
        const { measurement, cpu, rounds } = measured[mode];
        results.push({
          ...measurement,
          ...(mode === 'on' ? { baseline: row('off') } : {}),
          notes: [
            `CPU ms/tx incl. its event's dispatch: ${cpuPerOperation(new Map(), cpu, measurement.operations)}`,
            `rounds ${rounds.map((r) => r.throughput.toFixed(0)).join('/')} tx/s`,
            ...(mode === 'on'
              ? [
                  `${sink.exports()} OTLP exports (${(sink.bytes() / 1e6).toFixed(1)} MB), ${scrapes} scrapes; on costs ${((1 - ratio) * 100).toFixed(1)}% (target ≤ 10%)`,
                ]
              : []),
          ].join('; '),
        });
      }
      return results;
    } finally {
      for (const api of started) await api.stop();
      await sink.close();
    }
  },
};
