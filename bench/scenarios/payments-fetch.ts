import fs from 'node:fs';
import path from 'node:path';
import { connectorLabel } from '../../areas/payments';
import { paymentId } from '../../areas/payments/ids';
import { createTemporalClient } from '../../lib/temporal';
import { cpuPerOperation, cpuSnapshot } from '../lib/cpu';
import { call, settle, withDb } from '../lib/helpers';
import type { BenchPlatform } from '../lib/platform';
import type { Measurement } from '../lib/stats';

/** Accounts of the simulated provider: enough for two pages of 1000 in the accounts list rows. */
export const FETCH_ACCOUNTS = 2000;
const PAYMENTS = 10_000;

/** A provider's view as the simulated connector reads it: accounts, one balance each, and payments between them. */
function writeProviderFiles(directory: string, payments: number): void {
  fs.mkdirSync(directory, { recursive: true });
  const base = Date.UTC(2024, 0, 1);
  const accounts = Array.from({ length: FETCH_ACCOUNTS }, (_, i) => ({
    reference: `acc-${i}`, name: `Account ${i}`, type: i % 4 ? 'INTERNAL' : 'EXTERNAL', defaultAsset: 'EUR/2',
    createdAt: new Date(base + i * 60_000).toISOString(), metadata: { segment: `s${i % 7}` },
  }));
  const balances = accounts.map((a, i) => ({ accountReference: a.reference, asset: 'EUR/2', amount: 100_000 + i }));
  const list = Array.from({ length: payments }, (_, j) => ({
    reference: `pay-${j}`, type: j % 3 ? 'PAY-IN' : 'PAYOUT', status: j % 10 ? 'SUCCEEDED' : 'PENDING', scheme: 'sepa credit',
    asset: 'EUR/2', amount: 1000 + j, createdAt: new Date(base + j * 1000).toISOString(),
    sourceAccountReference: `acc-${j % FETCH_ACCOUNTS}`, destinationAccountReference: `acc-${(j * 7 + 1) % FETCH_ACCOUNTS}`,
    metadata: { order: `o-${j}` },
  }));
  // Plain JSON numbers (no bigint in these files): JSON.stringify is fine outside the platform's code.
  fs.writeFileSync(path.join(directory, 'accounts.json'), JSON.stringify(accounts));
  fs.writeFileSync(path.join(directory, 'balances.json'), JSON.stringify(balances));
  fs.writeFileSync(path.join(directory, 'payments.json'), JSON.stringify(list));
}

interface TimedTask { taskID: string; seconds: number; cpu: string; dispatchSeconds: number; dispatchCpu: string }

/**
 * One connector task (install or reset) timed from the API call to the end of its workflow, with the stack's CPU per
 * payment over that window; then the dispatch of the events it committed, settled and counted apart.
 */
async function timedTask(platform: BenchPlatform, payments: number, start: () => Promise<string>): Promise<TimedTask> {
  const { client, connection } = await createTemporalClient({ address: platform.temporalAddress, namespace: 'default' });
  try {
    const before = cpuSnapshot();
    const t0 = performance.now();
    const taskID = await start();
    await client.workflow.getHandle(taskID).result();
    const seconds = (performance.now() - t0) / 1000;
    const done = cpuSnapshot();
    const t1 = performance.now();
    await settle(platform, 300_000);
    const dispatchSeconds = (performance.now() - t1) / 1000;
    return { taskID, seconds, cpu: cpuPerOperation(before, done, payments), dispatchSeconds, dispatchCpu: cpuPerOperation(done, cpuSnapshot(), payments) };
  } finally {
    await connection.close();
  }
}

/**
 * A connector fetch cycle of 10,000 payments (× BENCH_SCALE) over 2,000 accounts with a balance each: the simulated
 * connector is installed through the API on a directory holding them, and the row times the install task (accounts,
 * balances, then payments, each one activity) until its workflow completes, i.e. until every payment is committed and
 * readable; then a reset with nothing changed (the same files fetched again: the steady-state poll cost).
 */
export async function fetchCycleRows(platform: BenchPlatform, scale: number): Promise<Measurement[]> {
  const payments = Math.max(1, Math.round(PAYMENTS * scale));
  const directory = path.join(platform.dataDir, `bench-payments-${Date.now().toString(36)}`);
  writeProviderFiles(directory, payments);
  const token = await platform.token();
  const name = `bench-fetch-${Date.now().toString(36)}`;
  let connectorID = '';
  const measurements: Measurement[] = [];
  try {
    const cycle = async (scenario: string, start: () => Promise<string>) => {
      const run = await timedTask(platform, payments, start);
      const stored = await withDb(platform, async (db) => {
        const [{ n }] = (await db('payments_payments').where({ connector_id: connectorID }).count('* as n')) as Array<{ n: string }>;
        return Number(n);
      });
      // Readable through the API: the last payment of the file, by its id.
      const last = await call(platform, token, 'GET', `/api/payments/v3/payments/${encodeURIComponent(paymentId(connectorID, `pay-${payments - 1}`))}`);
      const readable = last?.data?.reference === `pay-${payments - 1}`;
      measurements.push({
        scenario, unit: 'payments/s', throughput: payments / run.seconds, p50Ms: NaN, p99Ms: NaN, operations: payments,
        errors: payments - stored + (readable ? 0 : 1),
        notes: `${payments} payments, ${FETCH_ACCOUNTS} accounts and balances in ${run.seconds.toFixed(1)} s; CPU ms/payment: ${run.cpu}; `
          + `then its events' dispatch ${run.dispatchSeconds.toFixed(1)} s, CPU ms/payment: ${run.dispatchCpu || 'none'}`,
      });
      process.stdout.write(`[bench] ${scenario}: task ${run.taskID}, ${stored} payments stored\n`);
    };
    await cycle(`payments connector fetch cycle, ${payments} payments (install)`, async () => {
      connectorID = (await call(platform, token, 'POST', '/api/payments/v3/connectors/install/simulated', { name, directory, pollingPeriod: '1h' }, [202])).data;
      return `${connectorLabel({ id: connectorID, provider: 'simulated', name })}-install`;
    });
    await cycle(`payments connector fetch cycle, ${payments} payments unchanged (reset)`, async () =>
      (await call(platform, token, 'POST', `/api/payments/v3/connectors/${connectorID}/reset`, undefined, [202])).data);
  } finally {
    if (connectorID) await call(platform, token, 'DELETE', `/api/payments/v3/connectors/${connectorID}`, undefined, [202]).catch(() => undefined);
    fs.rmSync(directory, { recursive: true, force: true });
  }
  return measurements;
}
