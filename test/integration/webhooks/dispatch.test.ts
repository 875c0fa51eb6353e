import { WorkflowNotFoundError, type Client, type Connection } from '@temporalio/client';
import { createDb, type Db } from '../../../db/knex';
import { emitEvents } from '../../../db/outbox';
import { stringifyJson } from '../../../lib/json';
import { SEARCH_ATTRIBUTES } from '../../../lib/search-attributes';
import { api } from '../../support/http';
import { temporalClient } from '../../support/temporal';
import { isTruthy, pollUntil } from '../../support/eventually';
import { startReceiver } from '../../support/webhook-receiver';

describe('event dispatch', () => {
  let db: Db;
  let client: Client;
  let connection: Connection;
  beforeAll(async () => {
    db = createDb(process.env.TEST_DATABASE_URL as string, { poolMax: 2 });
    ({ client, connection } = await temporalClient());
  });
  afterAll(async () => {
    await connection.close();
    await db.destroy();
  });

  const emit = async (type: string) => (await db.transaction((trx) => emitEvents(trx, [{ app: 'ledger', type, payload: { n: 1 } }])))[0];
  const dispatched = (id: string) =>
    pollUntil(async () => (await db('events_outbox').where({ id }).first())?.dispatched_at, isTruthy, { timeoutMs: 30_000, what: 'dispatch' });

  it('stores each payload as the exact text stringifyJson writes: big integers, key order, escapes, in emission order', async () => {
    // No NUL and no lone surrogate: the outbox is shared by every test, some of which read payloads as jsonb, which holds neither.
    const payloads = [
      { z: 1, a: { big: 123456789012345678901234567890n, list: [3, 2, 1] }, text: 'quote " backslash \\ newline \n \u0001 é 😀' },
      { ledger: 'l', transactions: [], accountMetadata: { 'users:1': { 'k"ey': '' } } },
      {},
    ];
    const type = `EXACT_${Date.now()}`;
    const ids = await db.transaction((trx) =>
      emitEvents(
        trx,
        payloads.map((payload) => ({ app: 'ledger', type, payload })),
      ),
    );
    const rows = await db('events_outbox').whereIn('id', ids).orderBy('seq').select('id', 'type', 'version', 'payload');
    expect(rows.map((r: { id: string }) => r.id)).toEqual(ids);
    expect(rows.map((r: { payload: string }) => r.payload)).toEqual(payloads.map((p) => stringifyJson(p)));
    expect(rows.every((r: { type: string; version: string }) => r.type === type && r.version === 'v2')).toBe(true);
  });

  it('stores a payload holding an escaped NUL or a lone surrogate as the text column holds it (rolled back: other tests read payloads as jsonb)', async () => {
    const payload = { text: 'nul \u0000 lone \ud800 end' };
    const rollback = new Error('rollback');
    let stored: string | undefined;
    await expect(
      db.transaction(async (trx) => {
        const [id] = await emitEvents(trx, [{ app: 'ledger', type: 'NUL_TEXT', payload }]);
        stored = (await trx('events_outbox').where({ id }).first()).payload;
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect(stored).toBe(stringifyJson(payload));
    expect(stored).toContain('\\u0000');
  });

  it('marks an event nobody listens to as dispatched without starting a workflow', async () => {
    const id = await emit(`UNHEARD_${Date.now()}`);
    await dispatched(id);
    expect((await db('events_outbox').where({ id }).first()).batch_id).toBeNull();
    await expect(client.workflow.getHandle(`events-${id}`).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  it('starts the event batch workflow once a webhook config listens to the type', async () => {
    const type = `HEARD_${Date.now()}`;
    const receiver = await startReceiver();
    try {
      const config = await api('POST', '/api/webhooks/configs', { body: { endpoint: receiver.url, eventTypes: [`ledger.${type.toLowerCase()}`] } });
      expect(config.status).toBe(200);
      const id = await emit(type);
      await dispatched(id);
      const { batch_id: batchId } = await db('events_outbox').where({ id }).first();
      const description = await client.workflow.getHandle(`events-${batchId}`).describe();
      expect(description.type).toBe('processEventBatch');
      // An operator finds the batch of an event type in the Web UI: EventTypes = "ledger.heard_…".
      expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.EventTypes)).toEqual([`ledger.${type.toLowerCase()}`]);
      await pollUntil(() => receiver.received.length === 1 || undefined, isTruthy, { timeoutMs: 30_000, what: 'delivery' });
    } finally {
      await receiver.close();
    }
  });
});
