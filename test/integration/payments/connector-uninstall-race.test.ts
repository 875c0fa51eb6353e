import '../../support/allow-loopback-providers';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { createPaymentsActivities } from '../../../activities/payments';
import { lockInstalledConnector } from '../../../areas/payments';
import { connectorId } from '../../../areas/payments/ids';
import type { Db } from '../../../db/knex';
import { createLogger } from '../../../lib/logger';
import { stringifyJson } from '../../../lib/json';
import { simulatedDirectory, suffix, testDb } from '../../support/payments';

/**
 * A fetch reads its provider before the transaction that writes what it read: an uninstall committed in between must
 * not get data written after it. The write holds the connector row, so the uninstall waits for it or is seen by it.
 */
describe('a fetch and an uninstall of the same connector', () => {
  let db: Db;
  beforeAll(() => {
    db = testDb();
  });
  afterAll(() => db.destroy());

  async function newConnector(): Promise<string> {
    const id = connectorId('simulated');
    const name = `race-${suffix()}`;
    await db('payments_connectors').insert({
      id,
      provider: 'simulated',
      name,
      config: stringifyJson({ name, directory: simulatedDirectory({}), pollingPeriod: '1m' }),
    });
    return id;
  }

  it('makes the uninstall wait while a write holds the connector, then lets no later write in', async () => {
    const id = await newConnector();
    const writer = await db.transaction();
    try {
      expect(await lockInstalledConnector(writer, id)).toBe(true);
      // The uninstall's update of the row cannot pass the writer's lock (a short lock_timeout makes the wait visible).
      await expect(
        db.transaction(async (trx) => {
          await trx.raw(`SET LOCAL lock_timeout = '300ms'`);
          await trx('payments_connectors').where({ id }).update({ uninstalled_at: trx.fn.now() });
        }),
      ).rejects.toMatchObject({ code: '55P03' });
    } finally {
      await writer.commit();
    }
    await db('payments_connectors').where({ id }).update({ uninstalled_at: db.fn.now() });
    expect(await db.transaction((trx) => lockInstalledConnector(trx, id))).toBe(false);
  });

  it('lets a fetch whose connector was uninstalled while the provider answered write nothing', async () => {
    const id = connectorId('generic');
    let calls = 0;
    // The provider answers only once the connector is uninstalled: the fetch passed its first check before.
    const provider = http.createServer((req, res) => {
      calls += 1;
      void db('payments_connectors')
        .where({ id })
        .update({ uninstalled_at: db.fn.now() })
        .then(() => {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(
            stringifyJson({
              data: [{ reference: 'late-1', type: 'PAY-IN', status: 'SUCCEEDED', amount: 5, asset: 'USD/2', createdAt: '2024-05-01T00:00:00Z' }],
            }),
          );
        });
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    try {
      const name = `race-generic-${suffix()}`;
      const endpoint = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
      await db('payments_connectors').insert({
        id,
        provider: 'generic',
        name,
        config: stringifyJson({ name, endpoint, pollingPeriod: '1m', timeout: '5s' }),
      });
      const activities = createPaymentsActivities({
        db,
        logger: createLogger('test', 'silent'),
        dataDir: os.tmpdir(),
        publicUrl: 'http://127.0.0.1:1',
        temporal: undefined as never,
      });
      await expect(activities.paymentsFetchPayments(id)).rejects.toMatchObject({ type: 'NOT_INSTALLED', nonRetryable: true });
      expect(calls).toBe(1);
      expect(await db('payments_payments').where({ connector_id: id }).pluck('reference')).toEqual([]);
    } finally {
      await new Promise((resolve) => provider.close(resolve));
    }
  });
});
