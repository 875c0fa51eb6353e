import type { Scenario } from '.';
import { KOA_BASELINE } from './baselines';
import { upsertAccounts } from '../../areas/payments';
import { connectorId } from '../../areas/payments';
import { upsertPayments } from '../../areas/payments';
import { cpuPerOperation, cpuSnapshot } from '../lib/cpu';
import { FETCH_ACCOUNTS, fetchCycleRows } from './payments-fetch';
import { settle, withDb } from '../lib/helpers';
import { httpLoad } from '../lib/http-load';
import type { Measurement } from '../lib/stats';

const PAYMENTS = 1100;

/**
 * Op 7 (`GET /api/payments/payments`, default sort date:desc, no filter) at pageSize 15 and 1000 over 1,100 payments
 * (each with one adjustment), seeded through areas/payments' own upsert on a connector row of their own; next to Koa
 * hello-world. A page of 1000 is ~0.6 MB of JSON, so its rate is a serialisation figure more than a database one.
 * Then a connector fetch cycle of 10,000 payments (install, then a poll tick with nothing changed; payments-fetch.ts) and
 * the accounts lists (v3 and v1) at pageSize 15 and 1000 over the accounts that cycle fetched.
 */
export const paymentsScenario: Scenario = {
  name: 'payments',
  async run(platform, scale) {
    await withDb(platform, async (db) => {
      const connectorID = connectorId('simulated');
      await db('payments_connectors').insert({
        id: connectorID,
        provider: 'simulated',
        name: `bench-${Date.now().toString(36)}`,
        config: JSON.stringify({}),
        uninstalled_at: db.fn.now(),
      });
      await upsertAccounts(
        db,
        connectorID,
        'simulated',
        ['src', 'dst'].map((reference) => ({ reference, type: 'INTERNAL', createdAt: new Date(0), metadata: {}, raw: {} })),
      );
      const base = Date.UTC(2024, 0, 1);
      await db.transaction((trx) =>
        upsertPayments(
          trx,
          connectorID,
          Array.from({ length: PAYMENTS }, (_, j) => ({
            reference: `bench-${j}`,
            createdAt: new Date(base + j * 1000),
            type: 'PAY-IN',
            status: j % 10 ? 'SUCCEEDED' : 'PENDING',
            scheme: 'sepa credit',
            asset: 'EUR/2',
            amount: BigInt(1000 + j),
            sourceAccountReference: 'src',
            destinationAccountReference: 'dst',
            metadata: { n: String(j) },
            raw: { j },
          })),
        ),
      );
    });
    await settle(platform);
    const token = await platform.token();
    const headers = { Authorization: `Bearer ${token}` };
    const results: Measurement[] = [];
    for (const [pageSize, connections, amount] of [
      [15, 32, 5000],
      [1000, 8, 200],
    ]) {
      const cpu = cpuSnapshot();
      const m = await httpLoad({
        scenario: `payments list op 7, pageSize ${pageSize} (c=${connections})`,
        url: `${platform.apiUrl}/api/payments/payments?pageSize=${pageSize}`,
        connections,
        amount: Math.round(amount * scale),
        headers,
        baseline: KOA_BASELINE,
      });
      results.push({ ...m, notes: `CPU ms/req: ${cpuPerOperation(cpu, cpuSnapshot(), m.operations)}` });
    }
    results.push(...(await fetchCycleRows(platform, scale)));
    await settle(platform);
    const accounts = await withDb(platform, async (db) => Number(((await db('payments_accounts').count('* as n')) as Array<{ n: string }>)[0].n));
    for (const [version, path] of [
      ['v3', '/api/payments/v3/accounts'],
      ['v1', '/api/payments/accounts'],
    ]) {
      for (const [pageSize, connections, amount] of [
        [15, 32, 5000],
        [1000, 8, 200],
      ] as const) {
        const cpu = cpuSnapshot();
        const m = await httpLoad({
          scenario: `payments accounts list ${version}, pageSize ${pageSize} (c=${connections})`,
          url: `${platform.apiUrl}${path}?pageSize=${pageSize}`,
          connections,
          amount: Math.round(amount * scale),
          headers,
          baseline: KOA_BASELINE,
        });
        results.push({
          ...m,
          notes: `${accounts} accounts (${FETCH_ACCOUNTS} of the fetch cycle's connector); CPU ms/req: ${cpuPerOperation(cpu, cpuSnapshot(), m.operations)}`,
        });
      }
    }
    return results;
  },
};
