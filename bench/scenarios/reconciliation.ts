import fs from 'node:fs';
import path from 'node:path';
import type { Scenario } from '.';
import { cpuPerOperation, cpuSnapshot } from '../lib/cpu';
import { call, quietDatabase, settle, withDb } from '../lib/helpers';
import type { BenchPlatform } from '../lib/platform';
import { percentile, type Measurement } from '../lib/stats';

const LEDGER_ACCOUNTS = 10_000;
const POOL_ACCOUNTS = 1_000;
/** Sends per seeding transaction (one Numscript each, under the 100,000-character bound): 20 transactions seed the 10,000 accounts. */
const SENDS_PER_TRANSACTION = 500;
const RUNS = 20;

const accountIdOf = (connectorID: string, reference: string) =>
  Buffer.from(JSON.stringify({ ConnectorID: connectorID, Reference: reference })).toString('base64url');

/** The database's counters: buffers hit and read, tuples returned and fetched (pg_stat_database). */
async function dbCounters(platform: BenchPlatform): Promise<Record<string, number>> {
  return withDb(
    platform,
    async (db) => {
      const { rows } = await db
        .raw(
          `SELECT pg_stat_clear_snapshot(); SELECT blks_hit, blks_read, tup_returned, tup_fetched FROM pg_stat_database WHERE datname = current_database()`,
        )
        .then((r: any) => r[1] ?? r);
      return Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)]));
    },
    1,
  );
}

/**
 * One reconciliation (`POST /api/reconciliation/policies/{id}/reconciliation`) of a policy selecting 10,000 ledger
 * accounts (`bank:0` .. `bank:9999`, each funding `users:<i>` with an overdraft, seeded by 20 Numscript transactions)
 * against a pool of 1,000 simulated provider accounts holding the same total: the time of each reconciliation
 * (sequential), its CPU per part, and the database's cost per reconciliation from pg_stat_database (buffers hit/read,
 * tuples returned/fetched, counted over the runs; the stats are flushed at the end of each transaction, so the last
 * run's figures can trail by a statement). Every run must be OK. BENCH_SCALE multiplies the runs, not the sizes.
 */
export const reconciliationScenario: Scenario = {
  name: 'reconciliation',
  async run(platform, scale) {
    const token = await platform.token();
    const ledger = `bench-recon-${Date.now().toString(36)}`;
    await call(platform, token, 'POST', `/api/ledger/v2/${ledger}`);
    let total = 0n;
    for (let first = 0; first < LEDGER_ACCOUNTS; first += SENDS_PER_TRANSACTION) {
      const sends: string[] = [];
      for (let i = first; i < Math.min(first + SENDS_PER_TRANSACTION, LEDGER_ACCOUNTS); i++) {
        total += BigInt(1000 + i);
        sends.push(`send [USD/2 ${1000 + i}] (\n  source = @bank:${i} allowing unbounded overdraft\n  destination = @users:${i}\n)`);
      }
      await call(platform, token, 'POST', `/api/ledger/v2/${ledger}/transactions`, { script: { plain: sends.join('\n'), vars: {} } });
    }

    const directory = path.join(platform.dataDir, `bench-recon-${Date.now().toString(36)}`);
    fs.mkdirSync(directory, { recursive: true });
    const accounts = Array.from({ length: POOL_ACCOUNTS }, (_, j) => ({
      reference: `r-${j}`,
      name: `R ${j}`,
      type: 'INTERNAL',
      defaultAsset: 'USD/2',
    }));
    const share = total / BigInt(POOL_ACCOUNTS);
    const balances = accounts.map((a, j) => ({
      accountReference: a.reference,
      asset: 'USD/2',
      amount: Number(j === 0 ? total - share * BigInt(POOL_ACCOUNTS - 1) : share),
    }));
    fs.writeFileSync(path.join(directory, 'accounts.json'), JSON.stringify(accounts));
    fs.writeFileSync(path.join(directory, 'balances.json'), JSON.stringify(balances));
    const connectorID: string = (
      await call(
        platform,
        token,
        'POST',
        '/api/payments/v3/connectors/install/simulated',
        { name: `bench-recon-${Date.now().toString(36)}`, directory, pollingPeriod: '1h' },
        [202],
      )
    ).data;
    try {
      const accountIDs = accounts.map((a) => accountIdOf(connectorID, a.reference));
      // The install task fetches accounts, then balances: wait until every balance is stored.
      for (const deadline = Date.now() + 300_000; ;) {
        const stored = await withDb(
          platform,
          async (db) => Number(((await db('payments_balances').whereIn('account_id', accountIDs).count('* as n')) as Array<{ n: string }>)[0].n),
          1,
        );
        if (stored === POOL_ACCOUNTS) break;
        if (Date.now() > deadline) throw new Error(`only ${stored} balances fetched`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      const poolID: string = (
        await call(platform, token, 'POST', '/api/payments/v3/pools', { name: `bench-recon-${Date.now().toString(36)}`, accountIDs })
      ).data;
      const policy = (
        await call(platform, token, 'POST', '/api/reconciliation/policies', {
          name: 'bench',
          ledgerName: ledger,
          ledgerQuery: { $match: { address: 'bank:' } },
          paymentsPoolID: poolID,
        })
      ).data;
      await settle(platform);
      await quietDatabase(platform, ['ledger_transactions', 'ledger_accounts', 'payments_balance_history', 'payments_balances']);

      const runs = Math.max(1, Math.round(RUNS * scale));
      const latencies: number[] = [];
      let errors = 0;
      const counters = await dbCounters(platform);
      const cpu = cpuSnapshot();
      const t0 = performance.now();
      for (let n = 0; n < runs; n++) {
        const at = new Date(Date.now() - 1).toISOString();
        const started = performance.now();
        const result = (
          await call(platform, token, 'POST', `/api/reconciliation/policies/${policy.id}/reconciliation`, {
            reconciledAtLedger: at,
            reconciledAtPayments: at,
          })
        ).data;
        latencies.push(performance.now() - started);
        if (result.status !== 'OK' || String(result.paymentsBalances['USD/2']) !== total.toString()) errors++;
      }
      const seconds = (performance.now() - t0) / 1000;
      const cpuNote = cpuPerOperation(cpu, cpuSnapshot(), runs);
      const after = await dbCounters(platform);
      const per = (key: string) => Math.round((after[key] - counters[key]) / runs);
      latencies.sort((a, b) => a - b);
      const m: Measurement = {
        scenario: `reconciliation, ${LEDGER_ACCOUNTS} ledger accounts vs a pool of ${POOL_ACCOUNTS}`,
        unit: 'reconciliations/s',
        throughput: runs / seconds,
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        operations: runs,
        errors,
        notes: `sequential; per reconciliation: database buffers hit ${per('blks_hit')}, read ${per('blks_read')}, tuples returned ${per('tup_returned')}, fetched ${per('tup_fetched')}; CPU ms: ${cpuNote}`,
      };
      await call(platform, token, 'DELETE', `/api/reconciliation/policies/${policy.id}`);
      return [m];
    } finally {
      await call(platform, token, 'DELETE', `/api/payments/v3/connectors/${connectorID}`, undefined, [202]).catch(() => undefined);
      fs.rmSync(directory, { recursive: true, force: true });
    }
  },
};
