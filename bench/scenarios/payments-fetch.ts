import type { Client } from '@temporalio/client';
import fs from 'node:fs';
import path from 'node:path';
import { connectorLabel } from '../../areas/payments';
import { paymentId } from '../../areas/payments/ids';
import { createTemporalClient } from '../../lib/temporal';
import type { connectorPoll } from '../../workflows/payments/connector-poll';
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
    reference: `acc-${i}`,
    name: `Account ${i}`,
    type: i % 4 ? 'INTERNAL' : 'EXTERNAL',
    defaultAsset: 'EUR/2',
    createdAt: new Date(base + i * 60_000).toISOString(),
    metadata: { segment: `s${i % 7}` },
  }));
  const balances = accounts.map((a, i) => ({ accountReference: a.reference, asset: 'EUR/2', amount: 100_000 + i }));
  const list = Array.from({ length: payments }, (_, j) => ({
    reference: `pay-${j}`,
    type: j % 3 ? 'PAY-IN' : 'PAYOUT',
    status: j % 10 ? 'SUCCEEDED' : 'PENDING',
    scheme: 'sepa credit',
    asset: 'EUR/2',
    amount: 1000 + j,
    createdAt: new Date(base + j * 1000).toISOString(),
    sourceAccountReference: `acc-${j % FETCH_ACCOUNTS}`,
    destinationAccountReference: `acc-${(j * 7 + 1) % FETCH_ACCOUNTS}`,
    metadata: { order: `o-${j}` },
  }));
  // Plain JSON numbers (no bigint in these files): JSON.stringify is fine outside the platform's code.
  fs.writeFileSync(path.join(directory, 'accounts.json'), JSON.stringify(accounts));
  fs.writeFileSync(path.join(directory, 'balances.json'), JSON.stringify(balances));
  fs.writeFileSync(path.join(directory, 'payments.json'), JSON.stringify(list));
}

interface TimedRuns {
  workflowIds: string[];
  seconds: number;
  cpu: string;
  dispatchSeconds: number;
  dispatchCpu: string;
}

/**
 * Workflow runs (the install task, or one tick of the connector's schedules) timed from their start to the end of the
 * last, with the stack's CPU per payment over that window; then the dispatch of the events they committed, settled
 * and counted apart.
 */
export async function timedRuns(platform: BenchPlatform, payments: number, start: (client: Client) => Promise<string[]>): Promise<TimedRuns> {
  const { client, connection } = await createTemporalClient({ address: platform.temporalAddress, namespace: 'default' });
  try {
    const before = cpuSnapshot();
    const t0 = performance.now();
    const workflowIds = await start(client);
    await Promise.all(workflowIds.map((id) => client.workflow.getHandle(id).result()));
    const seconds = (performance.now() - t0) / 1000;
    const done = cpuSnapshot();
    const t1 = performance.now();
    await settle(platform, 300_000);
    const dispatchSeconds = (performance.now() - t1) / 1000;
    // Per 1,000 payments: per payment, most parts are under the 0.05 ms cpuPerOperation prints.
    const thousands = payments / 1000;
    return {
      workflowIds,
      seconds,
      cpu: cpuPerOperation(before, done, thousands),
      dispatchSeconds,
      dispatchCpu: cpuPerOperation(done, cpuSnapshot(), thousands),
    };
  } finally {
    await connection.close();
  }
}

/**
 * A connector fetch cycle of 10,000 payments (× BENCH_SCALE) over 2,000 accounts with a balance each: the simulated
 * connector is installed through the API on a directory holding them, and the row times the install task (accounts,
 * balances, then payments, each one activity) until its workflow completes, i.e. until every payment is committed and
 * readable. Then one tick of its schedules with nothing changed (the steady-state poll cost): the three `connectorPoll`
 * runs a tick starts, one per kind of data, started together as the schedules (same period) start them.
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
    const cycle = async (scenario: string, start: (client: Client) => Promise<string[]>) => {
      const run = await timedRuns(platform, payments, start);
      const stored = await withDb(platform, async (db) => {
        const [{ n }] = (await db('payments_payments').where({ connector_id: connectorID }).count('* as n')) as Array<{ n: string }>;
        return Number(n);
      });
      // Readable through the API: the last payment of the file, by its id.
      const last = await call(
        platform,
        token,
        'GET',
        `/api/payments/v3/payments/${encodeURIComponent(paymentId(connectorID, `pay-${payments - 1}`))}`,
      );
      const readable = last?.data?.reference === `pay-${payments - 1}`;
      measurements.push({
        scenario,
        unit: 'payments/s',
        throughput: payments / run.seconds,
        p50Ms: NaN,
        p99Ms: NaN,
        operations: payments,
        errors: payments - stored + (readable ? 0 : 1),
        notes:
          `${payments} payments, ${FETCH_ACCOUNTS} accounts and balances in ${run.seconds.toFixed(1)} s; CPU ms per 1,000 payments: ${run.cpu}; ` +
          `then its events' dispatch ${run.dispatchSeconds.toFixed(1)} s, CPU ms per 1,000 payments: ${run.dispatchCpu || 'each part under 0.05'}`,
      });
      process.stdout.write(`[bench] ${scenario}: ${run.workflowIds.join(', ')}, ${stored} payments stored\n`);
    };
    await cycle(`payments connector fetch cycle, ${payments} payments (install)`, async () => {
      connectorID = (
        await call(platform, token, 'POST', '/api/payments/v3/connectors/install/simulated', { name, directory, pollingPeriod: '1h' }, [202])
      ).data;
      return [`${connectorLabel({ id: connectorID, provider: 'simulated', name })}-install`];
    });
    const label = connectorLabel({ id: connectorID, provider: 'simulated', name });
    await cycle(`payments connector poll tick, ${payments} payments unchanged`, (client) =>
      Promise.all(
        (['accounts', 'balances', 'payments'] as const).map(async (kind) => {
          const workflowId = `${label}-${kind}-bench-${Date.now()}`;
          await client.workflow.start<typeof connectorPoll>('connectorPoll', {
            taskQueue: platform.taskQueue,
            workflowId,
            args: [{ connectorID, kind }],
          });
          return workflowId;
        }),
      ),
    );
  } finally {
    if (connectorID) await call(platform, token, 'DELETE', `/api/payments/v3/connectors/${connectorID}`, undefined, [202]).catch(() => undefined);
    fs.rmSync(directory, { recursive: true, force: true });
  }
  return measurements;
}
