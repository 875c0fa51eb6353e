import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Scenario } from '..';
import { freePort } from '../../../scripts/stack/ports';
import { KOA_WARM_UP } from '../baselines';
import { processCpuSeconds } from '../../lib/cpu';
import { pick } from '../../lib/helpers';
import { httpLoad } from '../../lib/http-load';
import type { BenchPlatform } from '../../lib/platform';
import { combineRounds, type Measurement } from '../../lib/stats';
import { TRANSACTIONS, seedReadLedger } from './reads';

const ROOT = path.join(__dirname, '..', '..', '..');
/** The API as shipped, and the same API with V8's allocation-site pretenuring left on (bench/servers/api-v8-defaults.ts). */
const ENTRIES = { shipped: 'api/server.ts', 'pretenuring on': 'bench/servers/api-v8-defaults.ts' } as const;
type Mode = keyof typeof ENTRIES;
/** Batches of replicas, alternately of each mode, three per batch (started one after the other). */
const BATCHES = 4;
const PER_BATCH = 3;
/** Measured reads per replica, in rounds that go through the replicas in turn, after KOA_WARM_UP reads of warm-up each. */
const MEASURED = 40_000;
const ROUNDS = 2;

export const FRESH_REPLICA_ROW = (mode: Mode) => `op 11 on fresh API replicas, ${mode} (c=32)`;

/**
 * Op 11's load on API processes that take it soon after they start, as a replica added to a busy deployment does. In
 * each batch, three processes of one mode are started one after the other, each ready before the next; then each is
 * warmed up in turn, then measured in rounds that go through them in turn, so each sits idle while the others work.
 * With V8's allocation-site pretenuring (its default), some such processes are caught in a state where every read
 * costs 45–58 µs of API CPU instead of about 31, for the rest of their lives: 10 of 30 in session 14's probes, 5 of 24
 * in this scenario's first four runs. The API turns pretenuring off at start (api/server.ts): none of 36 processes in
 * the probes and none of 24 here reached that state (decision 32). Each row's notes list its processes' API CPU per read.
 */
export const apiFreshReplicasScenario: Scenario = {
  name: 'api-fresh-replicas',
  async run(platform, scale) {
    const token = await platform.token();
    // Not settled first: the first replicas take their load while the worker still hashes the seeding's logs, as a replica
    // added to a busy deployment shares its machine. Runs that settled first caught no process in the slow state (0 of 24).
    const ledger = await seedReadLedger(platform, token, 'api-fresh-replicas', { settle: false });
    const perRound = Math.round((MEASURED / ROUNDS) * scale);
    const warmUp = Math.round(KOA_WARM_UP * scale);
    const results: Record<Mode, Array<{ rounds: Measurement[]; cpuPerRead: number }>> = { shipped: [], 'pretenuring on': [] };
    // Which mode goes first is drawn per run: the first batch shares the machine with the seeding's hashing, and a
    // fixed order would give that condition to one mode only.
    const first: Mode = Math.random() < 0.5 ? 'shipped' : 'pretenuring on';
    const order: Mode[] = Array.from({ length: BATCHES }, (_batch, index) => (index % 2 === 0 ? first : first === 'shipped' ? 'pretenuring on' : 'shipped'));
    for (const mode of order) {
      const replicas: Replica[] = [];
      try {
        // One after the other, each ready before the next starts, as the probe that first caught the slow state did.
        for (let n = 0; n < PER_BATCH; n += 1) {
          replicas.push(await startReplica(platform, mode));
          await waitReady(replicas[n].url, ledger, token);
        }
        const reads = (replica: Replica, amount: number) =>
          httpLoad({
            scenario: FRESH_REPLICA_ROW(replica.mode),
            url: `${replica.url}/api/ledger/${ledger}/transactions/0`,
            connections: 32,
            amount,
            headers: { Authorization: `Bearer ${token}` },
            requestPath: () => `/api/ledger/${ledger}/transactions/${pick(TRANSACTIONS)}`,
          });
        // Each replica waits, idle, while the others are loaded: traffic that pauses and resumes, which is what
        // caught processes in the slow state (V8 shrinks an idle process's young generation).
        for (const replica of replicas) await reads(replica, warmUp);
        const measured = replicas.map(() => ({ rounds: [] as Measurement[], cpu: 0 }));
        for (let round = 0; round < ROUNDS; round += 1) {
          const order = replicas.map((_replica, index) => index);
          for (const index of round % 2 ? order.reverse() : order) {
            const before = processCpuSeconds(replicas[index].child.pid as number);
            measured[index].rounds.push(await reads(replicas[index], perRound));
            measured[index].cpu += processCpuSeconds(replicas[index].child.pid as number) - before;
          }
        }
        replicas.forEach((replica, index) => {
          const { rounds, cpu } = measured[index];
          results[replica.mode].push({ rounds, cpuPerRead: (1e6 * cpu) / rounds.reduce((sum, round) => sum + round.operations, 0) });
        });
      } finally {
        await Promise.all(replicas.map((replica) => stop(replica.child)));
      }
    }
    return (Object.keys(results) as Mode[]).map((mode) => {
      const perProcess = results[mode].map((r) => r.cpuPerRead);
      return {
        ...combineRounds(results[mode].flatMap((r) => r.rounds)),
        scenario: FRESH_REPLICA_ROW(mode),
        ...(mode === 'shipped' ? { baseline: FRESH_REPLICA_ROW('pretenuring on') } : {}),
        notes: `${perProcess.length} processes, ${warmUp} reads of warm-up each; batches in the order ${order.join(', ')}; API CPU µs/read per process, batch by batch: ${perProcess.map((us) => us.toFixed(1)).join(', ')}`,
      };
    });
  },
};

interface Replica { mode: Mode; url: string; child: ChildProcess }

async function startReplica(platform: BenchPlatform, mode: Mode): Promise<Replica> {
  const port = await freePort();
  // REPLICA_NODE_ARGS: Node flags for the replicas, as PLATFORM_NODE_ARGS for the stack's API.
  const child = spawn(process.execPath, [...(process.env.REPLICA_NODE_ARGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', path.join(ROOT, ENTRIES[mode])], {
    env: {
      ...process.env,
      DATABASE_URL: platform.databaseUrl,
      TEMPORAL_ADDRESS: platform.temporalAddress,
      DATA_DIR: platform.dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      // The stack's own address: the tokens it issues name it as their issuer and audience, which a replica checks.
      PUBLIC_URL: platform.apiUrl,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_SECOND: '0',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { mode, url: `http://127.0.0.1:${port}`, child };
}

async function waitReady(url: string, ledger: string, token: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const response = await fetch(`${url}/api/ledger/${ledger}/transactions/1`, { headers: { Authorization: `Bearer ${token}` } });
      if (response.status === 200) return;
      throw new Error(`replica answered ${response.status}: ${await response.text()}`);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** SIGTERM (the API closes its connections and exits), then SIGKILL if it has not exited within 10 s. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
