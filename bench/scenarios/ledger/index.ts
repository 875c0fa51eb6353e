import type { Scenario } from '..';
import { authJson, call, drainOutbox, pick, settle } from '../../lib/helpers';
import { httpLoad } from '../../lib/http-load';
import type { BenchPlatform } from '../../lib/platform';
import { interleavedRounds } from '../../lib/rounds';
import type { Measurement } from '../../lib/stats';
import { cpuPerOperation, cpuSnapshot, pauseOwnWorker } from '../../lib/cpu';
import { ASSET, FUNDS, HOT, dstAccount, hasPgbench, pgFloor, pgbenchFloor, seedFloorLedger, srcAccount, type FloorShape } from './floor';

export const ACCOUNTS = 1000;
const CONCURRENCY = [1, 8, 32];
/** Writes per concurrency level at BENCH_SCALE=1: enough for stable percentiles, small enough for the 10-minute budget. */
export const WRITES: Record<number, number> = { 1: 300, 8: 1000, 32: 1500 };
/** Alternating rounds of the hashing on/off comparison (each half of WRITES[32]). */
const HASH_ROUNDS = 4;
/**
 * Interleaved rounds of the write shapes at 32 clients and of one client (each half of WRITES[c]). Eight since session
 * 18: a round lasts about 0.25 s at 32 clients and 0.3 s at one client, and with four the ratio of the two moved by
 * a quarter across runs of the same code (docs/benchmarks.md).
 */
const SHAPE_ROUNDS = 8;
const SHAPE_ROWS = ['spread', 'hot', 'world', 'hot-destination', 'spread c=1'] as const;

export type WriteShape = 'spread' | 'hot' | 'world' | 'hot-destination';

/** One posting of 1 USD/2 in a shape: spread over funded sources and destinations, from the hot account, from `world`, or into the hot account. */
export function writePosting(shape: WriteShape): { source: string; destination: string; amount: number; asset: string } {
  const source = shape === 'hot' ? HOT : shape === 'world' ? 'world' : srcAccount(pick(ACCOUNTS));
  const destination = shape === 'hot-destination' ? HOT : dstAccount(pick(ACCOUNTS));
  return { source, destination, amount: 1, asset: ASSET };
}

export const floorName = (shape: 'spread' | 'hot', c: number, tool: 'pg' | 'pgbench' = 'pg') => `raw-SQL ledger floor ${shape} c=${c} (${tool})`;

/** Funds `bench:src:0..n-1` and `bench:hot` from world through the API (transactions of 500 postings). */
export async function seedApiLedger(platform: BenchPlatform, token: string, ledger: string, features?: Record<string, string>): Promise<void> {
  await call(platform, token, 'POST', `/api/ledger/v2/${ledger}`, features ? { features } : undefined);
  const postings = [...Array.from({ length: ACCOUNTS }, (_, i) => srcAccount(i)), HOT].map((destination) => ({
    source: 'world',
    destination,
    amount: Number(FUNDS),
    asset: ASSET,
  }));
  for (let i = 0; i < postings.length; i += 500) {
    await call(platform, token, 'POST', `/api/ledger/v2/${ledger}/transactions`, { postings: postings.slice(i, i + 500) });
  }
}

/**
 * Ledger writes over HTTP (`POST /api/ledger/v2/{ledger}/transactions`, one posting of 1 USD/2), spread over 1000 funded
 * sources and 1000 destinations, and all from one hot funded account, at 1, 8 and 32 clients; each next to the raw-SQL
 * floor of the same write at the same concurrency (pg, and pgbench when on PATH); the hot shapes (hot source, from
 * `world`, into one hot account) and one client in rounds interleaved with spread writes at 32 clients. Reads are
 * the ledger-reads scenario (reads.ts).
 */
export const ledgerScenario: Scenario = {
  name: 'ledger',
  async run(platform, scale) {
    const run = Date.now().toString(36);
    const ledger = `bench-${run}`;
    const floorLedger = `bench-floor-${run}`;
    const token = await platform.token();
    const results: Measurement[] = [];
    await seedFloorLedger(platform, floorLedger, ACCOUNTS);
    await seedApiLedger(platform, token, ledger);
    const unhashedLedger = `bench-nohash-${run}`;
    await seedApiLedger(platform, token, unhashedLedger, { HASH_LOGS: 'DISABLED' });
    const pgbench = await hasPgbench();

    for (const c of CONCURRENCY) {
      const total = Math.max(c, Math.round(WRITES[c] * scale));
      for (const shape of ['spread', 'hot'] as const) {
        const floorShape: FloorShape = { ledger: floorLedger, accounts: ACCOUNTS, ...(shape === 'hot' ? { hotSource: HOT } : {}) };
        await drainOutbox(platform);
        results.push(await pgFloor(platform, floorName(shape, c), floorShape, c, total));
        await drainOutbox(platform);
        const cpu = cpuSnapshot();
        const writes = await httpLoad({
          scenario: `ledger write ${shape} c=${c} (HTTP)`,
          url: `${platform.apiUrl}/api/ledger/v2/${ledger}/transactions`,
          method: 'POST',
          connections: c,
          amount: total,
          headers: authJson(token),
          requestBody: () => JSON.stringify({ postings: [writePosting(shape)] }),
          baseline: floorName(shape, c),
        });
        // The event each write commits is dispatched (one Temporal workflow per event) during and after the run: its
        // CPU is counted up to the end of the drain, so the split shows what one write costs the whole stack.
        const pending = await settle(platform);
        results.push({
          ...writes,
          notes: `CPU ms/tx incl. its event's dispatch: ${cpuPerOperation(cpu, cpuSnapshot(), writes.operations)}${pending ? `; ${pending} events or workflows still pending` : ''}`,
        });
      }
    }
    // What the log's hash chain costs writers: the same writes at 32 clients into a ledger created with HASH_LOGS
    // DISABLED (it still writes its log rows: they cannot be turned off; the raw-SQL floor, which writes none, bounds
    // what they cost). Rounds alternate on and off, and which goes first, so both see the same drift of the machine.
    for (const shape of ['spread', 'hot'] as const) {
      const measured = await interleavedRounds(HASH_ROUNDS, ['on', 'off'] as const, async (hashing) => {
        const round = await httpLoad({
          scenario: `ledger write ${shape} c=32 (HTTP, hashing ${hashing}, ${HASH_ROUNDS} interleaved rounds)`,
          url: `${platform.apiUrl}/api/ledger/v2/${hashing === 'on' ? ledger : unhashedLedger}/transactions`,
          method: 'POST',
          connections: 32,
          amount: Math.max(32, Math.round((WRITES[32] * scale) / 2)),
          headers: authJson(token),
          requestBody: () => JSON.stringify({ postings: [writePosting(shape)] }),
        });
        // Inside the run, so its CPU count includes its events' dispatch and the hasher, and the next run starts settled.
        await settle(platform);
        return round;
      });
      for (const hashing of ['on', 'off'] as const) {
        const { measurement, cpu } = measured[hashing];
        results.push({
          ...measurement,
          ...(hashing === 'off' ? { baseline: `ledger write ${shape} c=32 (HTTP, hashing on, ${HASH_ROUNDS} interleaved rounds)` } : {}),
          notes: `CPU ms/tx incl. its event's dispatch and the hasher: ${cpuPerOperation(new Map(), cpu, measurement.operations)}`,
        });
      }
    }
    // The hot shapes group commit is meant to make as cheap as spread writes (a hot source, every write from `world`,
    // every write into one account), and one client, each measured in rounds interleaved with spread writes at 32
    // clients: run one after the other, these ratios moved between 78% and 163% across runs of the same code, the
    // machine's drift between windows rather than the code (docs/benchmarks.md).
    const interleaved = (shape: WriteShape, c: number) => `ledger write ${shape} c=${c} (HTTP, ${SHAPE_ROUNDS} interleaved rounds)`;
    const pendingAfter = new Map<string, number>();
    const shapeRows = await interleavedRounds(SHAPE_ROUNDS, SHAPE_ROWS, async (row) => {
      const c = row === 'spread c=1' ? 1 : 32;
      const shape: WriteShape = row === 'spread c=1' ? 'spread' : row;
      const round = await httpLoad({
        scenario: interleaved(shape, c),
        url: `${platform.apiUrl}/api/ledger/v2/${ledger}/transactions`,
        method: 'POST',
        connections: c,
        amount: Math.max(c, Math.round((WRITES[c] * scale) / 2)),
        headers: authJson(token),
        requestBody: () => JSON.stringify({ postings: [writePosting(shape)] }),
      });
      // Inside the run, so its CPU count includes the dispatch of the events its writes committed, and the next run
      // starts settled (the block before this one ends settled too).
      const pending = await settle(platform);
      if (pending) pendingAfter.set(row, (pendingAfter.get(row) ?? 0) + pending);
      return round;
    });
    for (const row of SHAPE_ROWS) {
      const { measurement, cpu } = shapeRows[row];
      const pending = pendingAfter.get(row);
      results.push({
        ...measurement,
        baseline: row === 'spread c=1' ? undefined : row === 'spread' ? interleaved('spread', 1) : interleaved('spread', 32),
        notes: `CPU ms/tx incl. its event's dispatch: ${cpuPerOperation(new Map(), cpu, measurement.operations)}${pending ? `; ${pending} events or workflows still pending after its rounds` : ''}`,
      });
    }
    // Breakdown: the same spread write at 32 clients with the worker paused, so the event dispatch (one Temporal
    // workflow per event) does not share the CPU during the run; the events are dispatched once it resumes.
    const pause = pauseOwnWorker();
    if (pause.paused > 0) {
      let paused;
      const cpu = cpuSnapshot();
      try {
        paused = await httpLoad({
          scenario: 'ledger write spread c=32 (HTTP, worker paused: write path only)',
          url: `${platform.apiUrl}/api/ledger/v2/${ledger}/transactions`,
          method: 'POST',
          connections: 32,
          amount: Math.round(WRITES[32] * scale),
          headers: authJson(token),
          requestBody: () => JSON.stringify({ postings: [writePosting('spread')] }),
          baseline: floorName('spread', 32),
        });
      } finally {
        pause.resume();
      }
      results.push({
        ...paused,
        notes: `CPU ms/tx during the run (events dispatched after it): ${cpuPerOperation(cpu, cpuSnapshot(), paused.operations)}`,
      });
      await settle(platform);
    } else {
      pause.resume();
    }
    if (pgbench) {
      for (const c of CONCURRENCY) {
        for (const shape of ['spread', 'hot'] as const) {
          const floorShape: FloorShape = { ledger: floorLedger, accounts: ACCOUNTS, ...(shape === 'hot' ? { hotSource: HOT } : {}) };
          results.push(await pgbenchFloor(platform, floorName(shape, c, 'pgbench'), floorShape, c, Math.round(WRITES[c] * scale)));
        }
      }
    }
    await settle(platform);

    return results;
  },
};
