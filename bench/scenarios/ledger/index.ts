import type { Scenario } from '..';
import { KOA_BASELINE, startKoaHelloWorld } from '../baselines';
import { authJson, call, drainOutbox, pick, settle } from '../../lib/helpers';
import { httpLoad } from '../../lib/http-load';
import type { BenchPlatform } from '../../lib/platform';
import { interleavedRounds } from '../../lib/rounds';
import type { Measurement } from '../../lib/stats';
import { cpuPerOperation, cpuSnapshot, pauseOwnWorker } from '../../lib/cpu';
import { ASSET, FUNDS, HOT, dstAccount, hasPgbench, pgFloor, pgbenchFloor, seedFloorLedger, srcAccount, type FloorShape } from './floor';

const ACCOUNTS = 1000;
const CONCURRENCY = [1, 8, 32];
/** Writes per concurrency level at BENCH_SCALE=1: enough for stable percentiles, small enough for the 10-minute budget. */
const WRITES: Record<number, number> = { 1: 300, 8: 1000, 32: 1500 };
/** Alternating rounds of the hashing on/off comparison (each half of WRITES[32]). */
const HASH_ROUNDS = 4;
/** Alternating rounds of op 11 and the Koa baseline, together 40,000 requests each: rounds of a fraction of a second measured the machine's hiccups. */
const READ_ROUNDS = 4;
const KOA_INTERLEAVED = `${KOA_BASELINE}, ${READ_ROUNDS} rounds interleaved with op 11`;

export const floorName = (shape: 'spread' | 'hot', c: number, tool: 'pg' | 'pgbench' = 'pg') => `raw-SQL ledger floor ${shape} c=${c} (${tool})`;

/** Funds `bench:src:0..n-1` and `bench:hot` from world through the API (transactions of 500 postings). */
async function seedApiLedger(platform: BenchPlatform, token: string, ledger: string, features?: Record<string, string>): Promise<void> {
  await call(platform, token, 'POST', `/api/ledger/v2/${ledger}`, features ? { features } : undefined);
  const postings = [...Array.from({ length: ACCOUNTS }, (_, i) => srcAccount(i)), HOT].map((destination) => ({ source: 'world', destination, amount: Number(FUNDS), asset: ASSET }));
  for (let i = 0; i < postings.length; i += 500) {
    await call(platform, token, 'POST', `/api/ledger/v2/${ledger}/transactions`, { postings: postings.slice(i, i + 500) });
  }
}

/**
 * Ledger writes over HTTP (`POST /api/ledger/v2/{ledger}/transactions`, one posting of 1 USD/2), spread over 1000 funded
 * sources and 1000 destinations, and all from one hot funded account, at 1, 8 and 32 clients; each next to the raw-SQL
 * floor of the same write at the same concurrency (pg, and pgbench when on PATH); from `world` and into one hot account
 * at 32 clients next to the spread rate. Then op 11 reads by random txid,
 * next to the Koa hello-world baseline.
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
          requestBody: () =>
            JSON.stringify({ postings: [{ source: shape === 'hot' ? HOT : srcAccount(pick(ACCOUNTS)), destination: dstAccount(pick(ACCOUNTS)), amount: 1, asset: ASSET }] }),
          baseline: floorName(shape, c),
        });
        // The event each write commits is dispatched (one Temporal workflow per event) during and after the run: its
        // CPU is counted up to the end of the drain, so the split shows what one write costs the whole stack.
        const pending = await settle(platform);
        results.push({ ...writes, notes: `CPU ms/tx incl. its event's dispatch: ${cpuPerOperation(cpu, cpuSnapshot(), writes.operations)}${pending ? `; ${pending} events or workflows still pending` : ''}` });
      }
    }
    // What the log's hash chain costs writers: the same writes at 32 clients into a ledger created with HASH_LOGS
    // DISABLED (it still writes its log rows: they cannot be turned off; the raw-SQL floor, which writes none, bounds
    // what they cost). Rounds alternate on and off, and which goes first, so both see the same drift of the machine.
    for (const shape of ['spread', 'hot'] as const) {
      const measured = await interleavedRounds(
        HASH_ROUNDS,
        ['on', 'off'] as const,
        async (hashing) => {
          const round = await httpLoad({
            scenario: `ledger write ${shape} c=32 (HTTP, hashing ${hashing}, ${HASH_ROUNDS} interleaved rounds)`,
            url: `${platform.apiUrl}/api/ledger/v2/${hashing === 'on' ? ledger : unhashedLedger}/transactions`,
            method: 'POST',
            connections: 32,
            amount: Math.max(32, Math.round((WRITES[32] * scale) / 2)),
            headers: authJson(token),
            requestBody: () =>
              JSON.stringify({ postings: [{ source: shape === 'hot' ? HOT : srcAccount(pick(ACCOUNTS)), destination: dstAccount(pick(ACCOUNTS)), amount: 1, asset: ASSET }] }),
          });
          await settle(platform);
          return round;
        },
        () => settle(platform),
      );
      for (const hashing of ['on', 'off'] as const) {
        const { measurement, cpu } = measured[hashing];
        results.push({
          ...measurement,
          ...(hashing === 'off' ? { baseline: `ledger write ${shape} c=32 (HTTP, hashing on, ${HASH_ROUNDS} interleaved rounds)` } : {}),
          notes: `CPU ms/tx incl. its event's dispatch and the hasher: ${cpuPerOperation(new Map(), cpu, measurement.operations)}`,
        });
      }
    }
    // The hot shapes group commit is meant to make as cheap as spread writes: every write from `world`, and every write
    // into one account, each next to the spread rate at 32 clients of this run.
    for (const shape of ['world', 'hot-destination'] as const) {
      await drainOutbox(platform);
      const cpu = cpuSnapshot();
      const writes = await httpLoad({
        scenario: `ledger write ${shape} c=32 (HTTP)`,
        url: `${platform.apiUrl}/api/ledger/v2/${ledger}/transactions`,
        method: 'POST',
        connections: 32,
        amount: Math.round(WRITES[32] * scale),
        headers: authJson(token),
        requestBody: () =>
          JSON.stringify({
            postings: [{ source: shape === 'world' ? 'world' : srcAccount(pick(ACCOUNTS)), destination: shape === 'world' ? dstAccount(pick(ACCOUNTS)) : HOT, amount: 1, asset: ASSET }],
          }),
        baseline: 'ledger write spread c=32 (HTTP)',
      });
      const pending = await settle(platform);
      results.push({ ...writes, notes: `CPU ms/tx incl. its event's dispatch: ${cpuPerOperation(cpu, cpuSnapshot(), writes.operations)}${pending ? `; ${pending} events or workflows still pending` : ''}` });
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
          requestBody: () => JSON.stringify({ postings: [{ source: srcAccount(pick(ACCOUNTS)), destination: dstAccount(pick(ACCOUNTS)), amount: 1, asset: ASSET }] }),
          baseline: floorName('spread', 32),
        });
      } finally {
        pause.resume();
      }
      results.push({ ...paused, notes: `CPU ms/tx during the run (events dispatched after it): ${cpuPerOperation(cpu, cpuSnapshot(), paused.operations)}` });
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

    // Op 11: reads by txid spread over every transaction written above, in rounds interleaved with rounds of the Koa
    // baseline (alternating which goes first): the run-wide Koa row ran first, on a machine that had not yet written
    // anything, and a ratio of two windows that far apart measured the machine's drift as much as the API.
    const { cursor } = await call(platform, token, 'GET', `/api/ledger/v2/${ledger}/transactions?pageSize=1`);
    const txCount = Number(cursor.data[0]?.id ?? 0) + 1;
    const koa = await startKoaHelloWorld(platform);
    const perRound = Math.round((40_000 * scale) / READ_ROUNDS);
    let measured;
    try {
      measured = await interleavedRounds(READ_ROUNDS, ['op11', 'koa'] as const, (row) =>
        row === 'koa'
          ? koa.load(32, perRound, KOA_INTERLEAVED)
          : httpLoad({
              scenario: 'ledger read tx by txid, op 11 (c=32)',
              url: `${platform.apiUrl}/api/ledger/${ledger}/transactions/0`,
              connections: 32,
              amount: perRound,
              headers: { Authorization: `Bearer ${token}` },
              requestPath: () => `/api/ledger/${ledger}/transactions/${pick(txCount)}`,
            }),
      );
    } finally {
      koa.stop();
    }
    const reads = measured.op11.measurement;
    results.push({ ...measured.koa.measurement, scenario: KOA_INTERLEAVED, notes: `${READ_ROUNDS} rounds interleaved with op 11's` });
    results.push({ ...reads, baseline: KOA_INTERLEAVED, notes: `${READ_ROUNDS} rounds interleaved with the Koa baseline's; CPU ms/req: ${cpuPerOperation(new Map(), measured.op11.cpu, reads.operations)}` });
    return results;
  },
};
