import { createDb, type Db } from '../../../db/knex';
import { emitEvents } from '../../../db/outbox';
import { api } from '../../support/http';
import { isTruthy, pollUntil } from '../../support/eventually';
import { startReceiver } from '../../support/webhook-receiver';

const configs = '/api/webhooks/configs';
const deliveries = '/api/webhooks/deliveries';

describe('bulk replay of webhook deliveries', () => {
  let db: Db;
  const created: string[] = [];
  const receivers: Array<{ close(): Promise<void> }> = [];

  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL as string, { poolMax: 2 });
  });
  afterAll(async () => {
    for (const id of created) await api('DELETE', `${configs}/${id}`);
    await Promise.all(receivers.map((r) => r.close()));
    await db.destroy();
  });

  /** A config on a type unique to the test, whose receiver answers 400 to its first `failures` requests, then 200. */
  async function subscribe(failures: number) {
    const receiver = await startReceiver((n) => ({ status: n <= failures ? 400 : 200 }));
    receivers.push(receiver);
    const type = `TEST_${Math.random().toString(36).slice(2, 10).toUpperCase()}`;
    const { body } = await api('POST', configs, { body: { endpoint: receiver.url, eventTypes: [`ledger.${type.toLowerCase()}`] } });
    created.push(body.data.id);
    return { receiver, configId: body.data.id as string, type };
  }

  async function failedDeliveries(configId: string, count: number) {
    return pollUntil(
      async () => {
        const { body } = await api('GET', `${deliveries}?configId=${configId}&status=failed`);
        return body.cursor.data.length === count ? body.cursor.data : undefined;
      },
      isTruthy,
      { timeoutMs: 30_000, what: `${count} failed deliveries` },
    );
  }

  it('replays the failed deliveries of the chosen configs page by page, once per Idempotency-Key', async () => {
    const chosen = await subscribe(2);
    const other = await subscribe(1);
    const since = new Date(Date.now() - 1000).toISOString();
    await db.transaction((trx) =>
      emitEvents(trx, [
        { app: 'ledger', type: chosen.type, payload: { n: 1 } },
        { app: 'ledger', type: chosen.type, payload: { n: 2 } },
      ]),
    );
    await db.transaction((trx) => emitEvents(trx, [{ app: 'ledger', type: other.type, payload: { n: 3 } }]));
    const failed = await failedDeliveries(chosen.configId, 2);
    await failedDeliveries(other.configId, 1);

    const request = { createdAtFrom: since, configIds: [chosen.configId], statuses: ['failed'], pageSize: 1 };
    const first = await api('POST', `${deliveries}/replay`, { body: request, headers: { 'Idempotency-Key': `bulk-${chosen.configId}-1` } });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ replayed: 1, expedited: 0, skipped: 0, hasMore: true });
    expect(typeof first.body.data.nextCursor).toBe('string');
    // The window's end is fixed at the first page, so later pages see the same deliveries.
    expect(Date.parse(first.body.data.createdAtTo)).toBeLessThanOrEqual(Date.now());

    // Same key and body: the first answer, nothing replayed again.
    const repeated = await api('POST', `${deliveries}/replay`, { body: request, headers: { 'Idempotency-Key': `bulk-${chosen.configId}-1` } });
    expect(repeated.body).toEqual(first.body);
    const reused = await api('POST', `${deliveries}/replay`, {
      body: { ...request, pageSize: 2 },
      headers: { 'Idempotency-Key': `bulk-${chosen.configId}-1` },
    });
    expect([reused.status, reused.body.errorCode]).toEqual([409, 'CONFLICT']);

    // The cursor is valid only with the filters that issued it.
    const mismatched = await api('POST', `${deliveries}/replay`, {
      body: { ...request, configIds: [other.configId], cursor: first.body.data.nextCursor },
    });
    expect([mismatched.status, mismatched.body.errorCode]).toEqual([400, 'VALIDATION']);
    const second = await api('POST', `${deliveries}/replay`, {
      body: { ...request, cursor: first.body.data.nextCursor },
      headers: { 'Idempotency-Key': `bulk-${chosen.configId}-2` },
    });
    expect(second.body.data).toMatchObject({ replayed: 1, skipped: 0, hasMore: false, createdAtTo: first.body.data.createdAtTo });
    expect(second.body.data).not.toHaveProperty('nextCursor');

    // Both deliveries of the chosen config succeed in their first replay generation; the other config's stays failed.
    for (const delivery of failed) {
      const done = await pollUntil(
        async () => {
          const { body } = await api('GET', `${deliveries}/${delivery.id}`);
          return body.data.status === 'succeeded' ? body.data : undefined;
        },
        isTruthy,
        { timeoutMs: 30_000, what: 'the replayed delivery to succeed' },
      );
      expect(done).toMatchObject({ replayGeneration: 1, attemptCount: 1 });
    }
    expect(chosen.receiver.received).toHaveLength(4);
    expect((await api('GET', `${deliveries}?configId=${other.configId}&status=failed`)).body.cursor.data).toHaveLength(1);

    // Nothing failed is left for the chosen config: a replay of its window replays nothing.
    const none = await api('POST', `${deliveries}/replay`, { body: { createdAtFrom: since, configIds: [chosen.configId] } });
    expect(none.body.data).toMatchObject({ replayed: 0, skipped: 0, hasMore: false });
  });

  it('counts pending deliveries as skipped, and checks its window and body', async () => {
    const { configId } = await subscribe(0);
    const since = new Date(Date.now() - 1000).toISOString();
    // A delivery no workflow carries (no event in the outbox), so it stays pending.
    await db('webhook_deliveries').insert({
      id: crypto.randomUUID(),
      event_id: crypto.randomUUID(),
      config_id: configId,
      event_type: 'ledger.unsent',
      endpoint: 'http://127.0.0.1:9/hook',
      payload: '{}',
    });
    const result = await api('POST', `${deliveries}/replay`, { body: { createdAtFrom: since, configIds: [configId] } });
    expect(result.body.data).toMatchObject({ replayed: 0, expedited: 0, skipped: 1, hasMore: false });

    const year = new Date(Date.now() - 365 * 24 * 3600_000).toISOString();
    for (const body of [
      { createdAtFrom: year },
      { createdAtFrom: since, createdAtTo: year },
      {},
      { createdAtFrom: since, statuses: ['succeeded'] },
      { createdAtFrom: since, configIds: ['nope'] },
      { createdAtFrom: since, pageSize: 1001 },
      { createdAtFrom: since, unknown: true },
      { createdAtFrom: since, cursor: 'forged' },
    ]) {
      const response = await api('POST', `${deliveries}/replay`, { body });
      expect([response.status, response.body.errorCode]).toEqual([400, 'VALIDATION']);
    }
  });
});
