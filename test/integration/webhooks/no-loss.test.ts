import { createDb, type Db } from '../../../db/knex';
import { emitEvents } from '../../../db/outbox';
import { api } from '../../support/http';
import { control } from '../../support/control';
import { isTruthy, pollUntil } from '../../support/eventually';
import { temporalClient } from '../../support/temporal';
import { startReceiver } from '../../support/webhook-receiver';
import { webhooksSettled } from '../../support/webhooks';

describe('no event lost while the worker is down', () => {
  let db: Db;
  beforeAll(() => (db = createDb(process.env.TEST_DATABASE_URL as string, { poolMax: 2 })));
  afterAll(async () => db.destroy());

  it('delivers, each once, the events committed while the worker was stopped, after it restarts', async () => {
    const receiver = await startReceiver();
    const type = `NO_LOSS_${Math.random().toString(36).slice(2, 10).toUpperCase()}`;
    const config = (await api('POST', '/api/webhooks/configs', { body: { endpoint: receiver.url, eventTypes: [`ledger.${type.toLowerCase()}`] } }))
      .body.data;
    try {
      // Frozen, the worker hears no NOTIFY and runs no scan; killed afterwards, whatever it had buffered is gone too.
      // The control answers once the worker is stopped, and the outbox's only dispatcher lives in the worker, so these
      // events stay undispatched until the worker is back: no window of quiet can add to that.
      await control('worker', 'freeze');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(...(await db.transaction((trx) => emitEvents(trx, [{ app: 'ledger', type, payload: { n: i } }]))));
      expect(await db('events_outbox').whereIn('id', ids).whereNotNull('dispatched_at').count({ n: '*' })).toEqual([{ n: '0' }]);
      await control('worker', 'kill');

      await pollUntil(() => receiver.received.length >= 5, isTruthy, { timeoutMs: 90_000, what: 'five deliveries' });
      // Each once: a duplicate would be an extra delivery after the five, sent by the time every event is marked
      // dispatched (which comes after its workflow started, so maybe after the deliveries) and its batch is done.
      const { client, connection } = await temporalClient();
      try {
        await webhooksSettled(db, client, ids, [config.id]);
      } finally {
        await connection.close();
      }
      const eventIds = receiver.received.map((r) => (JSON.parse(r.body) as { id: string }).id);
      expect(eventIds.sort()).toEqual([...ids].sort());
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(5);
    } finally {
      await api('DELETE', `/api/webhooks/configs/${config.id}`);
      await receiver.close();
    }
  }, 150_000); // the worker's restart and the 90 s wait for the deliveries need more than the default 60 s
});
