import type { Scenario } from '..';
import { KOA_BASELINE, KOA_WARM_UP, startKoaHelloWorld } from '../baselines';
import { awaitLogsHashed, call, pick, quietDatabase, settle } from '../../lib/helpers';
import { httpLoad } from '../../lib/http-load';
import { interleavedRounds } from '../../lib/rounds';
import type { BenchPlatform } from '../../lib/platform';
import type { Measurement } from '../../lib/stats';
import { cpuPerOperation } from '../../lib/cpu';
import { ASSET, dstAccount } from './floor';

/** Transactions the reads pick from, written in bulks of 500 (one posting each, as the write rows' transactions). */
export const TRANSACTIONS = 5_000;
const BULK = 500;
/**
 * Alternating rounds of op 11 and the Koa baseline, 10,000 requests each: rounds of a fraction of a second measured the
 * machine's hiccups. Sixteen of them: the ratio of one pair of rounds spreads by about 5 points (standard deviation over
 * the 22 runs of 2026-11-27), so four rounds moved the run's ratio by 3 points or more from one run to the next and
 * eight still by about 2; sixteen cost some 10 s more.
 */
const READ_ROUNDS = 16;
const KOA_INTERLEAVED = `${KOA_BASELINE}, ${READ_ROUNDS} rounds interleaved with op 11`;

/**
 * A ledger of TRANSACTIONS transactions for reads by txid to pick from (`pick(TRANSACTIONS)`), written and, unless
 * `settle` is false, settled: its events dispatched, its logs hashed and the database vacuumed, so the reads do not
 * share the machine with the seeding.
 */
export async function seedReadLedger(platform: BenchPlatform, token: string, scenario: string, options: { settle?: boolean } = {}): Promise<string> {
  const ledger = `bench-reads-${Date.now().toString(36)}`;
  await call(platform, token, 'POST', `/api/ledger/v2/${ledger}`);
  for (let written = 0; written < TRANSACTIONS; written += BULK) {
    const elements = Array.from({ length: BULK }, (_, i) => ({
      action: 'CREATE_TRANSACTION',
      data: { postings: [{ source: 'world', destination: dstAccount(written + i), amount: 1, asset: ASSET }] },
    }));
    await call(platform, token, 'POST', `/api/ledger/v2/${ledger}/_bulk?atomic=true`, elements);
  }
  if (options.settle === false) return ledger;
  const pending = (await settle(platform)) + (await awaitLogsHashed(platform, ledger));
  if (pending)
    console.error(
      `[bench] ${scenario}: ${pending} events, workflows or unhashed logs of the seeding still pending; the reads share the machine with them`,
    );
  await quietDatabase(platform, ['ledger_transactions', 'ledger_logs', 'ledger_log_hashes', 'ledger_volumes', 'events_outbox']);
  return ledger;
}

/**
 * Op 11: reads of one transaction by random txid (`GET /api/ledger/{ledger}/transactions/{txid}`) at 32 clients, in
 * rounds interleaved with rounds of the Koa hello-world baseline (alternating which goes first): a baseline measured
 * minutes earlier, on a machine that had not yet written anything, measured the machine's drift as much as the API.
 * Both loads ask a different path per request (the baseline's route takes an id it ignores), so the load generator,
 * which shares the machine's two cores with the servers, does the same work for both.
 */
export const ledgerReadsScenario: Scenario = {
  name: 'ledger-reads',
  async run(platform, scale) {
    const token = await platform.token();
    const ledger = await seedReadLedger(platform, token, 'ledger-reads');

    const koa = await startKoaHelloWorld(platform);
    const perRound = Math.round(10_000 * scale);
    const reads = (amount: number) =>
      httpLoad({
        scenario: 'ledger read tx by txid, op 11 (c=32)',
        url: `${platform.apiUrl}/api/ledger/${ledger}/transactions/0`,
        connections: 32,
        amount,
        headers: { Authorization: `Bearer ${token}` },
        requestPath: () => `/api/ledger/${ledger}/transactions/${pick(TRANSACTIONS)}`,
      });
    let measured;
    try {
      // Warmed up as the baseline is (baselines.ts): the API has served the seeding's writes but no read yet, and
      // its first thousands of reads run code V8 has not compiled, which is not what a serving API runs.
      await reads(KOA_WARM_UP);
      measured = await interleavedRounds(READ_ROUNDS, ['op11', 'koa'] as const, (row) =>
        row === 'koa' ? koa.load(32, perRound, KOA_INTERLEAVED, { pathPerRequest: true }) : reads(perRound),
      );
    } finally {
      koa.stop();
    }
    const op11 = measured.op11.measurement;
    return [
      {
        ...measured.koa.measurement,
        scenario: KOA_INTERLEAVED,
        notes: `${READ_ROUNDS} rounds interleaved with op 11's (req/s: ${roundRates(measured.koa.rounds)}); CPU ms/req: ${cpuPerOperation(new Map(), measured.koa.cpu, measured.koa.measurement.operations)}`,
      },
      {
        ...op11,
        baseline: KOA_INTERLEAVED,
        notes: `${READ_ROUNDS} rounds interleaved with the Koa baseline's (req/s: ${roundRates(measured.op11.rounds)}), after ${KOA_WARM_UP} reads of warm-up; CPU ms/req: ${cpuPerOperation(new Map(), measured.op11.cpu, op11.operations)}`,
      },
    ];
  },
};

const roundRates = (rounds: Measurement[]) => rounds.map((round) => Math.round(round.throughput)).join(', ');
