/**
 * Webhook delivery benchmark: a local receiver subscribed to one event type, events written to the outbox as the
 * areas do (emitEvents in a transaction), and the time until each one is received.
 * - burst: N events committed as fast as 8 writers can; deliveries per second from first commit to last receipt;
 * - paced: events at a steady rate below saturation; commit-to-receipt latency p50/p99.
 * Starts its own platform (embedded PostgreSQL, Temporal dev server, worker, API) on free ports in a temp directory.
 * Run: node --import tsx bench/webhooks.ts [burstCount=1000] [pacedRate=50] [pacedSeconds=10]
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { freePort } from '../scripts/stack/ports';
import { startPlatform } from '../scripts/stack/platform';
import { createDb } from '../db/knex';
import { emitEvents } from '../db/outbox';
import { createConfig } from '../db/webhooks/configs';

const [burstCount, pacedRate, pacedSeconds] = [Number(process.argv[2] ?? 1000), Number(process.argv[3] ?? 50), Number(process.argv[4] ?? 10)];
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];

async function main(): Promise<void> {
  process.env.WEBHOOKS_ALLOWED_CIDRS = '127.0.0.0/8';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-webhooks-'));
  fs.chmodSync(dataDir, 0o755); // embedded PostgreSQL runs initdb as another user when started as root
  const log = fs.openSync(path.join(dataDir, 'platform.log'), 'a');
  const platform = await startPlatform({
    dataDir,
    env: { ...process.env, LOG_LEVEL: 'warn' },
    apiPort: await freePort(),
    postgresPort: await freePort(),
    temporalPort: await freePort(),
    temporalSqlite: false,
    persistentPostgres: false,
    log: (part, line) => fs.writeSync(log, `${part.padEnd(10)}| ${line}\n`),
  });
  const received = new Map<string, number>();
  let onReceive: (() => void) | undefined;
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.set((JSON.parse(Buffer.concat(chunks).toString()) as { id: string }).id, performance.now());
      res.writeHead(204).end();
      onReceive?.();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const db = createDb(platform.databaseUrl, { poolMax: 10 });
  try {
    const type = 'BENCH';
    await createConfig(db, { endpoint: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`, eventTypes: ['ledger.bench'] });
    const emit = async () => {
      const [id] = await db.transaction((trx) => emitEvents(trx, [{ app: 'ledger', type, payload: { amount: 100 } }]));
      return { id, committedAt: performance.now() };
    };
    const waitFor = (ids: string[]) =>
      new Promise<void>((resolve) => {
        const check = () => ids.every((id) => received.has(id)) && resolve();
        onReceive = check;
        check();
      });

    // Warm-up: bundle loaded, connections open.
    await waitFor([(await emit()).id]);

    const burstStart = performance.now();
    const burst: string[] = [];
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (burst.length < burstCount) {
        const slot = burst.push('') - 1;
        burst[slot] = (await emit()).id;
      }
    }));
    const committed = performance.now();
    await waitFor(burst.filter(Boolean));
    const burstSeconds = (performance.now() - burstStart) / 1000;
    console.log(`burst: ${burstCount} events committed in ${((committed - burstStart) / 1000).toFixed(2)} s, delivered in ${burstSeconds.toFixed(2)} s -> ${(burstCount / burstSeconds).toFixed(0)} deliveries/s`);

    const paced: Array<{ id: string; committedAt: number }> = [];
    const interval = 1000 / pacedRate;
    const start = performance.now();
    for (let i = 0; i < pacedRate * pacedSeconds; i++) {
      const due = start + i * interval;
      if (due > performance.now()) await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
      paced.push(await emit());
    }
    await waitFor(paced.map((p) => p.id));
    const latencies = paced.map((p) => (received.get(p.id) as number) - p.committedAt);
    // Where the time goes, from the rows' own timestamps: outbox commit -> dispatched -> delivery planned -> attempt.
    const { rows } = await db.raw(
      `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM o.dispatched_at - o.date)) * 1000 AS dispatch,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM d.created_at - o.dispatched_at)) * 1000 AS plan,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM a.created_at - d.created_at)) * 1000 AS send
         FROM events_outbox o JOIN webhook_deliveries d ON d.event_id = o.id JOIN webhook_attempts a ON a.delivery_id = d.id
        WHERE o.id = ANY(?)`,
      [paced.map((p) => p.id)],
    );
    const stage = rows[0] as Record<string, number>;
    console.log(`paced stages (p50): commit->dispatched ${Math.round(stage.dispatch)} ms, dispatched->planned ${Math.round(stage.plan)} ms, planned->attempt recorded ${Math.round(stage.send)} ms`);
    console.log(`paced: ${paced.length} events at ${pacedRate}/s -> commit-to-delivery p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms`);
  } finally {
    await db.destroy();
    receiver.close();
    await platform.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
