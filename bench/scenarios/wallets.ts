import type { Scenario } from '.';
import { floorName } from './ledger';
import { cpuPerOperation, cpuSnapshot } from '../lib/cpu';
import { authJson, call, settle, withDb } from '../lib/helpers';
import { jsonClient } from '../lib/http-client';
import { measureLoop } from '../lib/stats';

const WALLETS = 32;
const CONCURRENCY = 8;

/**
 * Wallet debit with a hold then its confirmation, one operation = both calls (`POST /api/wallets/wallets/{id}/debit`
 * with `pending: true`, then `POST /api/wallets/holds/{holdID}/confirm`), over 32 funded wallets at 8 clients. Each
 * operation is two ledger writes, so its baseline is the raw-SQL floor of one spread write at the same concurrency.
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
    const cpu = cpuSnapshot();
    const measurement = await measureLoop({
      scenario: `wallet debit hold + confirm (c=${CONCURRENCY})`,
      unit: 'ops/s',
      concurrency: CONCURRENCY,
      total: Math.round(400 * scale),
      warmup: 2,
      operation: async (i) => {
        const wallet = ids[Math.abs(i) % WALLETS];
        const { data: hold } = await post(`/api/wallets/wallets/${wallet}/debit`, { amount: { asset: 'USD/2', amount: 1 }, pending: true }, 201);
        await post(`/api/wallets/holds/${hold.id}/confirm`, {}, 204);
      },
    }).finally(() => client.close());
    await settle(platform);
    const cpuNote = cpuPerOperation(cpu, cpuSnapshot(), measurement.operations);
    // The run's effect, checked: every confirmed hold moved exactly its amount out of the wallets.
    const debited = await withDb(platform, async (db) => {
      const { rows } = await db.raw(`SELECT coalesce(sum(output), 0)::text AS out FROM ledger_volumes WHERE ledger = 'wallets' AND address = ANY(?) AND asset = 'USD/2'`, [ids.map((id) => `wallets:${id}:main`)]);
      return BigInt(rows[0].out);
    });
    const expected = BigInt(measurement.operations + 2);
    return [{ ...measurement, baseline: floorName('spread', CONCURRENCY), notes: `two ledger writes per operation; debited ${debited} (expected ${expected}); CPU ms/op incl. events: ${cpuNote}` }];
  },
};
