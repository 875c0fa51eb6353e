import type { Scenario } from '..';
import { waitForHealthy } from '../../../scripts/stack/platform';
import { freePort } from '../../../scripts/stack/ports';
import { runNodeProcess, type ManagedProcess } from '../../../scripts/stack/processes';
import { KOA_WARM_UP } from '../baselines';
import { processCpuSeconds } from '../../lib/cpu';
import { pick } from '../../lib/helpers';
import { httpLoad } from '../../lib/http-load';
import type { BenchPlatform } from '../../lib/platform';
import { combineRounds, type Measurement } from '../../lib/stats';
import { TRANSACTIONS, seedReadLedger } from './reads';

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
    const modes: Mode[] = Math.random() < 0.5 ? ['shipped', 'pretenuring on'] : ['pretenuring on', 'shipped'];
    const order = Array.from({ length: BATCHES }, (_batch, index) => modes[index % 2]);
    for (const mode of order) {
      const replicas: Replica[] = [];
      try {
        // One after the other, each ready before the next starts, as the probe that first caught the slow state did.
        for (let n = 0; n < PER_BATCH; n += 1) {
          replicas.push(await startReplica(platform, mode));
          await waitForHealthy(replicas[n].url, 60_000);
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
          const turns = replicas.map((_replica, index) => index);
          for (const index of round % 2 ? turns.reverse() : turns) {
            const pid = replicas[index].process.child().pid as number;
            const before = processCpuSeconds(pid);
            measured[index].rounds.push(await reads(replicas[index], perRound));
            measured[index].cpu += processCpuSeconds(pid) - before;
          }
        }
        replicas.forEach((replica, index) => {
          const { rounds, cpu } = measured[index];
          results[replica.mode].push({ rounds, cpuPerRead: (1e6 * cpu) / rounds.reduce((sum, round) => sum + round.operations, 0) });
        });
      } finally {
        await Promise.all(replicas.map((replica) => replica.process.stop()));
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

interface Replica { mode: Mode; url: string; process: ManagedProcess }

async function startReplica(platform: BenchPlatform, mode: Mode): Promise<Replica> {
  const port = await freePort();
  // Started as the stack starts its API (PLATFORM_NODE_ARGS applies to them too), but never restarted: a replica that
  // dies fails its load instead of being measured anew.
  const managed = runNodeProcess({
    name: `replica:${port}`,
    entry: ENTRIES[mode],
    restartOnCrash: false,
    output: (name, line) => console.error(`[${name}] ${line}`),
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
  });
  return { mode, url: `http://127.0.0.1:${port}`, process: managed };
}
