import type { Scenario } from '..';
import { awaitLogsHashed, authJson, call, quietDatabase, settle } from '../../lib/helpers';
import { jsonClient } from '../../lib/http-client';
import type { BenchPlatform } from '../../lib/platform';
import type { Measurement } from '../../lib/stats';
import { ASSET } from './floor';

/** Transactions of the verified ledger at BENCH_SCALE=1 (issue 37: "seconds for a ledger of 100,000 transactions"). */
export const VERIFY_TRANSACTIONS = 100_000;
const BULK = 1_000;
/** Bulks sent at once while seeding. */
const SEEDERS = 4;
const ACCOUNTS = 10_000;
/** Clients of the writer that runs next to the verification. */
const WRITERS = 8;

/**
 * Seeds `count` transactions in bulks: two postings each (world → users:i, users:i → shops:j) and metadata on every
 * tenth, so the replay rebuilds volumes of 20,000 accounts and compares transaction metadata.
 */
async function seed(platform: BenchPlatform, token: string, ledger: string, count: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: SEEDERS }, async () => {
      while (next < count) {
        const from = next;
        next += BULK;
        const elements = Array.from({ length: Math.min(BULK, count - from) }, (_, k) => {
          const i = from + k;
          const user = `users:${i % ACCOUNTS}`;
          return {
            action: 'CREATE_TRANSACTION',
            data: {
              postings: [
                { source: 'world', destination: user, amount: 100, asset: ASSET },
                { source: user, destination: `shops:${i % 97}`, amount: 40, asset: ASSET },
              ],
              ...(i % 10 === 0 ? { metadata: { order: String(i) } } : {}),
            },
          };
        });
        await call(platform, token, 'POST', `/api/ledger/v2/${ledger}/_bulk?atomic=true`, elements);
      }
    }),
  );
}

interface Verification {
  valid: boolean;
  logs: number;
  mismatchCount: number;
}

async function verify(platform: BenchPlatform, token: string, ledger: string): Promise<{ seconds: number; result: Verification }> {
  const started = process.hrtime.bigint();
  const body = await call(platform, token, 'POST', `/api/ledger/v2/${ledger}/logs/verify`);
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, result: body.data as Verification };
}

/**
 * One-posting writes into the verified ledger from WRITERS clients until `until` resolves (or `limit` writes: a bound,
 * never open-ended). @returns writes per second and the writes made.
 */
async function writer(
  platform: BenchPlatform,
  token: string,
  ledger: string,
  until: Promise<unknown>,
  limit: number,
): Promise<{ perSecond: number; writes: number; errors: number; seconds: number }> {
  const client = jsonClient(platform.apiUrl, { connections: WRITERS, headers: authJson(token) });
  let done = false;
  void until.finally(() => (done = true));
  let writes = 0;
  let errors = 0;
  const started = process.hrtime.bigint();
  const body = JSON.stringify({ postings: [{ source: 'world', destination: 'users:writer', amount: 1, asset: ASSET }] });
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (!done && writes + errors < limit) {
        const { status } = await client.request('POST', `/api/ledger/v2/${ledger}/transactions`, body);
        if (status === 200 || status === 201) writes += 1;
        else errors += 1;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  client.close();
  return { perSecond: writes / seconds, writes, errors, seconds };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `ledger-verify`: POST .../logs/verify on a settled ledger of VERIFY_TRANSACTIONS × BENCH_SCALE transactions (logs
 * hashed, tables vacuumed), alone, then with a writer writing into the same ledger for as long as it runs; the
 * writer's rate during the verification is compared with its rate alone over the same duration, measured just before.
 */
export const ledgerVerifyScenario: Scenario = {
  name: 'ledger-verify',
  async run(platform, scale) {
    const token = await platform.token();
    const ledger = `bench-verify-${Date.now().toString(36)}`;
    const count = Math.round(VERIFY_TRANSACTIONS * scale);
    await call(platform, token, 'POST', `/api/ledger/v2/${ledger}`);
    const seedStarted = Date.now();
    await seed(platform, token, ledger, count);
    const seedSeconds = (Date.now() - seedStarted) / 1000;
    const pending = (await settle(platform, 600_000)) + (await awaitLogsHashed(platform, ledger, 600_000));
    if (pending) console.error(`[bench] ledger-verify: ${pending} events, workflows or unhashed logs of the seeding still pending`);
    await quietDatabase(platform, ['ledger_transactions', 'ledger_logs', 'ledger_log_hashes', 'ledger_volumes', 'ledger_accounts', 'events_outbox']);

    return measureVerify(platform, token, ledger, count, `seeded in ${seedSeconds.toFixed(0)} s`);
  },
};

/**
 * Times POST .../logs/verify on `ledger` (settled, `count` transactions): a warm-up, one alone, then one with a writer
 * into the same ledger, whose rate is compared with its rate alone over the same duration, measured just before.
 */
export async function measureVerify(platform: BenchPlatform, token: string, ledger: string, count: number, seeding: string): Promise<Measurement[]> {
  // A warm-up verification (the API compiles the replay's code), then the measured one alone.
  await verify(platform, token, ledger);
  const alone = await verify(platform, token, ledger);
  if (!alone.result.valid) throw new Error(`ledger-verify: the seeded ledger does not verify (${alone.result.mismatchCount} mismatches)`);

  const writerAlone = await writer(platform, token, ledger, sleep(alone.seconds * 1000), 1_000_000);
  const during = verify(platform, token, ledger);
  const writerDuring = await writer(platform, token, ledger, during, 1_000_000);
  const loaded = await during;
  if (!loaded.result.valid) throw new Error(`ledger-verify: verification under writes found ${loaded.result.mismatchCount} mismatches`);

  const row = (scenario: string, v: { seconds: number; result: Verification }, notes: string): Measurement => ({
    scenario,
    throughput: v.result.logs / v.seconds,
    unit: 'logs/s',
    p50Ms: v.seconds * 1000,
    p99Ms: v.seconds * 1000,
    operations: 1,
    errors: 0,
    notes,
  });
  return [
    row(`ledger verify, ${count} transactions, alone`, alone, `${alone.result.logs} logs in ${alone.seconds.toFixed(2)} s (${seeding})`),
    row(`ledger verify, ${count} transactions, with a writer (c=${WRITERS})`, loaded, `${loaded.result.logs} logs in ${loaded.seconds.toFixed(2)} s`),
    {
      scenario: `ledger writes into the verified ledger (c=${WRITERS}) during verify`,
      throughput: writerDuring.perSecond,
      unit: 'tx/s',
      p50Ms: NaN,
      p99Ms: NaN,
      operations: writerDuring.writes,
      errors: writerDuring.errors,
      baseline: `ledger writes into the verified ledger (c=${WRITERS}) without verify`,
      notes: `${((100 * writerDuring.perSecond) / writerAlone.perSecond).toFixed(0)}% of the rate without verify`,
    },
    {
      scenario: `ledger writes into the verified ledger (c=${WRITERS}) without verify`,
      throughput: writerAlone.perSecond,
      unit: 'tx/s',
      p50Ms: NaN,
      p99Ms: NaN,
      operations: writerAlone.writes,
      errors: writerAlone.errors,
      notes: `over ${writerAlone.seconds.toFixed(2)} s, the verification's duration alone`,
    },
  ];
}
