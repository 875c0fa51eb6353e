import { lockInstalledConnector } from '../../../areas/payments';
import { connectorId } from '../../../areas/payments/ids';
import type { Db } from '../../../db/knex';
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
    await db('payments_connectors').insert({ id, provider: 'simulated', name, config: stringifyJson({ name, directory: simulatedDirectory({}), pollingPeriod: '1m' }) });
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

});
