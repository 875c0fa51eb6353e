import type { Client, Connection } from '@temporalio/client';
import { ensureConnectorSchedules } from '../../../areas/payments';
import { connectorId, connectorLabel } from '../../../areas/payments/ids';
import type { Db } from '../../../db/knex';
import { stringifyJson } from '../../../lib/json';
import { isDefined, pollUntil } from '../../support/eventually';
import { paymentsOf, simulatedDirectory, suffix, testDb } from '../../support/payments';
import { taskQueue, temporalClient } from '../../support/temporal';

/**
 * A data directory of an earlier release: an installed connector with no schedules, fetched by a long-lived
 * `connector-<id>-fetch` workflow (its type is no longer registered). The worker's start-up step gives it its schedules
 * and terminates the old workflow.
 */
describe('connectors of an earlier release move to schedules', () => {
  let client: Client;
  let connection: Connection;
  let db: Db;
  beforeAll(async () => {
    ({ client, connection } = await temporalClient());
    db = testDb();
  });
  afterAll(async () => {
    await connection.close();
    await db.destroy();
  });

  it('creates the missing schedules, terminates the legacy fetch workflow, and is a no-op the second time', async () => {
    const id = connectorId('simulated');
    const name = `legacy-${suffix()}`;
    const directory = simulatedDirectory({ 'payments.json': [{ reference: 'old-1', type: 'PAY-IN', status: 'SUCCEEDED', amount: 1, asset: 'EUR/2', createdAt: '2024-01-01T00:00:00Z' }] });
    await db('payments_connectors').insert({ id, provider: 'simulated', name, config: stringifyJson({ name, directory, pollingPeriod: '1s' }) });
    const legacy = await client.workflow.start('connectorFetch', { taskQueue: taskQueue(), workflowId: `connector-${id}-fetch`, args: [{ connectorID: id, pollingPeriodMs: 1000 }] });

    // A connector whose config an older release accepted but schedules cannot take does not stop the others.
    const broken = connectorId('simulated');
    await db('payments_connectors').insert({ id: broken, provider: 'simulated', name: `broken-${suffix()}`, config: stringifyJson({}) });
    const failed: string[] = [];
    const temporal = { client, taskQueue: taskQueue() };
    expect(await ensureConnectorSchedules({ db, temporal }, (connectorID) => failed.push(connectorID))).toBeGreaterThanOrEqual(1);
    expect(failed).toContain(broken);
    await db('payments_connectors').where({ id: broken }).update({ uninstalled_at: db.fn.now() });
    expect((await legacy.describe()).status.name).toBe('TERMINATED');
    const label = connectorLabel({ id, provider: 'simulated', name });
    for (const kind of ['accounts', 'balances', 'payments', 'conversions', 'orders']) {
      expect((await client.schedule.getHandle(`${label}-${kind}`).describe()).spec.intervals?.map((i) => i.every)).toEqual([1000]);
    }
    // A liveness bound for a loaded machine (a tick every second), not a timed assertion.
    await pollUntil(async () => ((await paymentsOf(id)).length === 1 ? true : undefined), isDefined, { timeoutMs: 60_000, what: 'the schedules to fetch' });

    expect(await ensureConnectorSchedules({ db, temporal })).toBe(0);
    await db('payments_connectors').where({ id }).update({ uninstalled_at: db.fn.now() });
    for (const kind of ['accounts', 'balances', 'payments', 'conversions', 'orders']) await client.schedule.getHandle(`${label}-${kind}`).delete();
  }, 120_000);
});
