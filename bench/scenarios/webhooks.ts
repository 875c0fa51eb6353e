import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Scenario } from '.';
import { emitEvents } from '../../db/outbox';
import { createConfig, deleteConfig } from '../../areas/webhooks';
import { cpuPerOperation, cpuSnapshot } from '../lib/cpu';
import { settle, withDb } from '../lib/helpers';
import { httpLoad } from '../lib/http-load';
import { percentile, type Measurement } from '../lib/stats';

export const SINK_BASELINE = 'bare local HTTP sink (c=8)';
const FAILURE_RATE = Number(process.env.BENCH_FAILURE_RATE ?? 0.05);
const WRITERS = 8;
/** Offered event rates of the paced runs, each for PACED_SECONDS × BENCH_SCALE. */
const PACED_RATES = [50, 300];
const PACED_SECONDS = 6;

interface Receipt {
  firstAttempt?: number;
  success?: number;
  attempts: number;
}

/** A receiver on 127.0.0.1: `/bare` always 204 (the baseline), `/hook` answers 500 to 5% of requests, 204 otherwise. */
async function startReceiver() {
  const receipts = new Map<string, Receipt>();
  let waiter: (() => void) | undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url !== '/hook') return void res.writeHead(204).end();
      const now = performance.now();
      const id = (JSON.parse(Buffer.concat(chunks).toString()) as { id: string }).id;
      const receipt = receipts.get(id) ?? { attempts: 0 };
      receipts.set(id, receipt);
      receipt.attempts += 1;
      receipt.firstAttempt ??= now;
      if (Math.random() < FAILURE_RATE) return void res.writeHead(500).end();
      receipt.success ??= now;
      res.writeHead(204).end();
      waiter?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  /** Resolves when every id has a success, or at the deadline; @returns the ids still without one. */
  const waitForSuccess = (ids: string[], timeoutMs: number) =>
    new Promise<string[]>((resolve) => {
      const missing = () => ids.filter((id) => receipts.get(id)?.success === undefined);
      const timer = setTimeout(() => resolve(missing()), timeoutMs);
      waiter = () => {
        if (receipts.get(ids[ids.length - 1])?.success !== undefined && missing().length === 0) {
          clearTimeout(timer);
          resolve([]);
        }
      };
      waiter();
    });
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url, receipts, waitForSuccess, close };
}

/**
 * Webhook fan-out: events written to the outbox as the areas do (emitEvents in a transaction, type ledger.bench), one
 * subscribed config on a local receiver that answers 500 to 5% of requests (retried by Temporal after 1 s in the bench
 * stack). Burst: N events from 8 writers, deliveries/s from the first commit to the last first attempt, and every event
 * must then end with one success (bounded wait; the rest count as errors). Paced: 50 and 300 events/s, latency from
 * commit to the first attempt received (p50/p99; the 5% retried ones add ≥1 s to their own success, in the notes).
 * Baseline: the same receiver's bare path loaded directly with autocannon.
 */
export const webhooksScenario: Scenario = {
  name: 'webhooks',
  async run(platform, scale) {
    const receiver = await startReceiver();
    const results: Measurement[] = [];
    try {
      results.push(
        await httpLoad({
          scenario: SINK_BASELINE,
          url: `${receiver.url}/bare`,
          method: 'POST',
          connections: 8,
          amount: Math.round(5000 * scale),
          body: '{"id":"x"}',
          headers: { 'Content-Type': 'application/json' },
        }),
      );
      // The config is created in this process, whose SSRF check must allow the loopback receiver as the stack's does
      // (benchPlatform starts it so; a stack given by BENCH_API_URL needs WEBHOOKS_ALLOWED_CIDRS=127.0.0.0/8 too).
      process.env.WEBHOOKS_ALLOWED_CIDRS ||= '127.0.0.0/8';
      await withDb(
        platform,
        async (db) => {
          const config = await createConfig(db, { endpoint: `${receiver.url}/hook`, eventTypes: ['ledger.bench'] });
          const emit = async () => {
            const [id] = await db.transaction((trx) => emitEvents(trx, [{ app: 'ledger', type: 'BENCH', payload: { amount: 100 } }]));
            return { id, committedAt: performance.now() };
          };
          try {
            await settle(platform);
            await receiver.waitForSuccess([(await emit()).id], 30_000); // warm-up: bundles loaded, connections open

            const burstCount = Math.round(3000 * scale);
            const burst: string[] = [];
            const cpu = cpuSnapshot();
            const burstStart = performance.now();
            let issued = 0;
            await Promise.all(
              Array.from({ length: WRITERS }, async () => {
                while (issued < burstCount) {
                  issued += 1;
                  burst.push((await emit()).id);
                }
              }),
            );
            const lost = await receiver.waitForSuccess(burst, 60_000 + 120_000 * scale);
            const cpuNote = cpuPerOperation(cpu, cpuSnapshot(), burstCount);
            const firsts = burst.map((id) => receiver.receipts.get(id)?.firstAttempt).filter((t): t is number => t !== undefined);
            const attempts = burst.reduce((n, id) => n + (receiver.receipts.get(id)?.attempts ?? 0), 0);
            const burstLatencies = burst.map((id) => (receiver.receipts.get(id)?.firstAttempt ?? Infinity) - burstStart).sort((a, b) => a - b);
            results.push({
              scenario: `webhook fan-out burst of ${burstCount}, 5% 500s`,
              unit: 'deliveries/s',
              throughput: firsts.length / ((Math.max(...firsts) - burstStart) / 1000),
              p50Ms: percentile(burstLatencies, 50),
              p99Ms: percentile(burstLatencies, 99),
              operations: firsts.length,
              errors: lost.length,
              baseline: SINK_BASELINE,
              notes: `${attempts} attempts for ${burstCount} events; ${burstCount - lost.length} ended with a success; latency = start of burst to first attempt; CPU ms/event: ${cpuNote}`,
            });

            for (const rate of PACED_RATES) {
              await settle(platform);
              const commits: Array<Promise<{ id: string; committedAt: number }>> = [];
              const cpuPaced = cpuSnapshot();
              const start = performance.now();
              const count = Math.round(rate * PACED_SECONDS * scale);
              for (let i = 0; i < count; i++) {
                const due = start + (i * 1000) / rate;
                if (due > performance.now()) await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
                // Not awaited one by one: at 300/s a commit can take longer than the interval between two.
                commits.push(emit());
              }
              const paced = await Promise.all(commits);
              const offeredSeconds = (performance.now() - start) / 1000;
              const pacedLost = await receiver.waitForSuccess(
                paced.map((p) => p.id),
                60_000,
              );
              const cpuPacedNote = cpuPerOperation(cpuPaced, cpuSnapshot(), count);
              const first = paced.map((p) => (receiver.receipts.get(p.id)?.firstAttempt ?? Infinity) - p.committedAt).sort((a, b) => a - b);
              const success = paced.map((p) => (receiver.receipts.get(p.id)?.success ?? Infinity) - p.committedAt).sort((a, b) => a - b);
              results.push({
                scenario: `webhook paced ${rate} events/s, commit to first attempt`,
                unit: 'deliveries/s',
                throughput: paced.length / offeredSeconds,
                p50Ms: percentile(first, 50),
                p99Ms: percentile(first, 99),
                operations: paced.length,
                errors: pacedLost.length,
                baseline: SINK_BASELINE,
                notes: `throughput is the offered rate; commit to success (retries included): p50 ${percentile(success, 50).toFixed(0)} ms, p99 ${percentile(success, 99).toFixed(0)} ms; CPU ms/event: ${cpuPacedNote}`,
              });
            }
          } finally {
            await deleteConfig(db, config.id);
          }
        },
        WRITERS,
      );
    } finally {
      await receiver.close();
    }
    return results;
  },
};
