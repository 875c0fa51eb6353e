import type { Scenario } from '.';
import { floorName } from './ledger';
import { pgFloor, seedFloorLedger } from './ledger/floor';
import { cpuPerOperation } from '../lib/cpu';
import { authJson, call, settle, withDb } from '../lib/helpers';
import { jsonClient } from '../lib/http-client';
import { interleavedRounds } from '../lib/rounds';
import { measureLoop } from '../lib/stats';

const WALLETS = 32;
const CONCURRENCY = 8;
const ROUNDS = 4;
const WARMUP = 2;
const FLOOR_ACCOUNTS = 1000;
const FLOOR_NAME = `${floorName('spread', CONCURRENCY)}, ${ROUNDS} rounds interleaved with wallet hold + confirm`;

/**
 * Wallet debit with a hold then its confirmation, one operation = both calls (`POST /api/wallets/wallets/{id}/debit`
 * with `pending: true`, then `POST /api/wallets/holds/{holdID}/confirm`), over 32 funded wallets at 8 clients. Each
 * operation is two ledger writes, so its baseline is the raw-SQL floor of one spread write at the same concurrency,
 * measured here in rounds interleaved with the wallet loop's.
 */
export const walletsScenario: Scenario = {
  name: 'wallets',
  async run(platform, scale) {
    const token = await platform.token();
    const suffix = Date.now().toString(36);
    const ids: string[] = [];
    for (let i = 0; i < WALLETS; i++) {
      const { data } = await call(platform, token, 'POST', '/api/wallets/wallets', { name: `bench-${suffix}-${i}` });
      await call(platform, token, 'POST', `/api/wallets/wallets/${data.id}/credit`, { amount: { asset: 'USD/2', amount: 1_000_000_000 } });
      ids.push(data.id);
    }
    await settle(platform);
    const client = jsonClient(platform.apiUrl, { connections: CONCURRENCY, headers: authJson(token) });
    const post = async (path: string, body: unknown, expected: number) => {
      const { status, text } = await client.request('POST', path, JSON.stringify(body));
      if (status !== expected) throw new Error(`${path} answered ${status}: ${text.slice(0, 200)}`);
      return text ? JSON.parse(text) : undefined;
    };
    const floorLedger = `bench-wallet-floor-${suffix}`;
    await seedFloorLedger(platform, floorLedger, FLOOR_ACCOUNTS);
    // Rounds of the wallet loop and of its floor alternate (and which goes first): the ledger scenario's floor row ran
    // minutes earlier, on a machine in another state (this scenario runs after the payments ingest in a full run).
    let measured;
    try {
      measured = await interleavedRounds(
        ROUNDS,
        ['wallet', 'floor'] as const,
        async (row) => {
          if (row === 'floor')
            return pgFloor(platform, FLOOR_NAME, { ledger: floorLedger, accounts: FLOOR_ACCOUNTS }, CONCURRENCY, Math.round((1000 * scale) / ROUNDS));
          const round = await measureLoop({
            scenario: `wallet debit hold + confirm (c=${CONCURRENCY})`,
            unit: 'ops/s',
            concurrency: CONCURRENCY,
            total: Math.round((600 * scale) / ROUNDS),
            warmup: WARMUP,
            operation: async (i) => {
              const wallet = ids[Math.abs(i) % WALLETS];
              const { data: hold } = await post(
                `/api/wallets/wallets/${wallet}/debit`,
                { amount: { asset: 'USD/2', amount: 1 }, pending: true },
                201,
              );
              await post(`/api/wallets/holds/${hold.id}/confirm`, {}, 204);
            },
          });
          await settle(platform);
          return round;
        },
        () => settle(platform),
      );
    } finally {
      client.close();
    }
    const measurement = measured.wallet.measurement;
    const floor = measured.floor.measurement;
    // The run's effect, checked: every confirmed hold moved exactly its amount out of the wallets.
    const debited = await withDb(platform, async (db) => {
      const { rows } = await db.raw(
        `SELECT coalesce(sum(output), 0)::text AS out FROM ledger_volumes WHERE ledger = 'wallets' AND address = ANY(?) AND asset = 'USD/2'`,
        [ids.map((id) => `wallets:${id}:main`)],
      );
      return BigInt(rows[0].out);
    });
    const expected = BigInt(measurement.operations + ROUNDS * WARMUP);
    return [
      { ...floor, notes: `${ROUNDS} rounds interleaved with the wallet loop's` },
      {
        ...measurement,
        baseline: FLOOR_NAME,
        notes: `${ROUNDS} rounds interleaved with the floor's; two ledger writes per operation; debited ${debited} (expected ${expected}); CPU ms/op incl. events: ${cpuPerOperation(new Map(), measured.wallet.cpu, measurement.operations)}`,
      },
    ];
  },
};
