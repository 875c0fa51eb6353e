import type { Client, Connection } from '@temporalio/client';
import { startEventDispatcher } from '../../../activities/events/dispatcher';
import { createDb, type Db } from '../../../db/knex';
import { emitEvents } from '../../../db/outbox';
import { createLogger } from '../../../lib/logger';
import { api } from '../../support/http';
import { taskQueue, temporalClient } from '../../support/temporal';
import { isTruthy, pollUntil } from '../../support/eventually';
import { startReceiver } from '../../support/webhook-receiver';
import { webhooksSettled } from '../../support/webhooks';

const configs = '/api/webhooks/configs';
const eventIdOf = (body: string) => (JSON.parse(body) as { id: string }).id;
const randomType = (prefix: string) => `${prefix}_${Math.random().toString(36).slice(2, 10).toUpperCase()}`;

describe('event batches', () => {
  let db: Db;
  let client: Client;
  let connection: Connection;
  const cleanups: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    db = createDb(process.env.TEST_DATABASE_URL as string, { poolMax: 4 });
    ({ client, connection } = await temporalClient());
  });
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
    await connection.close();
    await db.destroy();
  });

  /** The event ids a batch workflow was started with, in order. */
  async function batchInput(workflowId: string): Promise<string[]> {
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const data = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0].data!;
    return (JSON.parse(Buffer.from(data).toString()) as Array<{ id: string }>).map((e) => e.id);
  }

  async function subscribe(type: string, respond?: Parameters<typeof startReceiver>[0]) {
    const receiver = await startReceiver(respond);
    const config = (await api('POST', configs, { body: { endpoint: receiver.url, eventTypes: [`ledger.${type.toLowerCase()}`] } })).body.data;
    cleanups.push(
      () => receiver.close(),
      () => api('DELETE', `${configs}/${config.id}`),
    );
    return { receiver, config };
  }

  it('delivers a batch of many events to several configs, each event to each config exactly once', async () => {
    const type = randomType('BATCH');
    const subscribers = [await subscribe(type), await subscribe(type), await subscribe(type, (n) => ({ status: n % 10 === 0 ? 503 : 200 }))];
    // 60 events in one transaction (claimed together) and 40 in concurrent ones (spread over several batches).
    const ids = await db.transaction((trx) =>
      emitEvents(
        trx,
        Array.from({ length: 60 }, (_, n) => ({ app: 'ledger', type, payload: { n } })),
      ),
    );
    const more = await Promise.all(
      Array.from({ length: 40 }, (_, n) => db.transaction((trx) => emitEvents(trx, [{ app: 'ledger', type, payload: { n: 60 + n } }]))),
    );
    ids.push(...more.flat());

    const succeeded = (receiverIndex: number) => {
      const { received } = subscribers[receiverIndex].receiver;
      // The third receiver answers 503 to every tenth request: those events arrive twice, the second time with success.
      return new Set(received.filter((_r, n) => receiverIndex < 2 || (n + 1) % 10 !== 0).map((r) => eventIdOf(r.body)));
    };
    await pollUntil(() => subscribers.every((_s, i) => succeeded(i).size === ids.length), isTruthy, {
      timeoutMs: 60_000,
      what: 'every event at every receiver',
    });
    // Once every batch is done and every drain over, nothing is left to send: a duplicate would have arrived by then.
    await webhooksSettled(
      db,
      client,
      ids,
      subscribers.map((s) => s.config.id),
    );
    for (const [i, { receiver, config }] of subscribers.entries()) {
      expect([...succeeded(i)].sort()).toEqual([...ids].sort());
      if (i < 2) expect(receiver.received).toHaveLength(ids.length);
      else expect(receiver.received).toHaveLength(ids.length + Math.floor(receiver.received.length / 10));
      const rows = await db('webhook_deliveries').where({ config_id: config.id });
      expect(rows).toHaveLength(ids.length);
      expect(rows.every((r) => r.status === 'succeeded')).toBe(true);
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(ids.length);
    }

    // The 60 events of one transaction were claimed together: one batch, whose workflow carries exactly its members.
    const [batch] = await db('events_outbox').whereIn('id', ids.slice(0, 60)).distinct('batch_id').pluck('batch_id');
    expect(await db('events_outbox').whereIn('id', ids.slice(0, 60)).distinct('batch_id').pluck('batch_id')).toEqual([batch]);
    const members = await db('events_outbox').where({ batch_id: batch }).orderBy('seq').pluck('id');
    expect(await batchInput(`events-${batch}`)).toEqual(members);
    for (const id of await db('events_outbox').whereIn('id', ids).distinct('batch_id').pluck('batch_id')) {
      expect((await client.workflow.getHandle(`events-${id}`).describe()).status.name).toBe('COMPLETED');
    }
  }, 150_000);

  it('re-starts a batch left by a crashed dispatcher under the same workflow id, without fanning it out twice', async () => {
    const type = randomType('CRASH');
    const { receiver, config } = await subscribe(type);
    // A dispatcher claimed three events (batch_id set, committed) and crashed before starting their workflow; another
    // one claimed two events, started their workflow and crashed before marking them dispatched. Written here without
    // NOTIFY, as rows the live dispatcher finds at its next scan (or the one below finds first).
    const rows = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        id: crypto.randomUUID(),
        app: 'ledger',
        type,
        payload: JSON.stringify({ i }),
        date: new Date(Date.now() + i),
      }));
    const crashedBeforeStart = rows(3);
    const crashedAfterStart = rows(2);
    const [batchA, batchB] = [crashedBeforeStart[0].id, crashedAfterStart[0].id];
    const envelopes = crashedAfterStart.map((r) => ({
      id: r.id,
      date: r.date.toISOString(),
      app: r.app,
      version: 'v2',
      type: r.type,
      payload: r.payload,
    }));
    await client.workflow.start('processEventBatch', { taskQueue: taskQueue(), workflowId: `events-${batchB}`, args: [envelopes] });
    await db('events_outbox').insert([
      ...crashedBeforeStart.map((r) => ({ ...r, batch_id: batchA })),
      ...crashedAfterStart.map((r) => ({ ...r, batch_id: batchB })),
    ]);

    const dispatcher = startEventDispatcher({
      db,
      databaseUrl: process.env.TEST_DATABASE_URL as string,
      temporal: { client, taskQueue: taskQueue() },
      logger: createLogger('test-dispatcher'),
      pollIntervalMs: 60_000,
    });
    try {
      await dispatcher.drainNow();
    } finally {
      await dispatcher.stop();
    }
    const all = [...crashedBeforeStart, ...crashedAfterStart].map((r) => r.id);
    await pollUntil(async () => (await db('events_outbox').whereIn('id', all).whereNull('dispatched_at').count({ n: '*' }))[0].n === '0', isTruthy, {
      timeoutMs: 30_000,
      what: 'dispatch',
    });
    await pollUntil(() => receiver.received.length >= 5, isTruthy, { timeoutMs: 30_000, what: 'five deliveries' });
    // Each event exactly once: a duplicate would be an extra delivery after the five, sent by then.
    await webhooksSettled(db, client, all, [config.id]);
    expect(receiver.received.map((r) => eventIdOf(r.body)).sort()).toEqual([...all].sort());

    // Batch A started once, under its first event's id, with exactly its three events; batch B kept its one run.
    const started = async (batch: string) => {
      const runs = [];
      for await (const run of client.workflow.list({ query: `WorkflowId = "events-${batch}"` })) runs.push(run);
      return runs;
    };
    // Visibility is eventually consistent: wait until each batch's run is listed, then check there is exactly one.
    await pollUntil(async () => (await started(batchA)).length >= 1, isTruthy, { timeoutMs: 30_000, what: 'visibility of batch A' });
    await pollUntil(async () => (await started(batchB)).length >= 1, isTruthy, { timeoutMs: 30_000, what: 'visibility of batch B' });
    expect(await started(batchA)).toHaveLength(1);
    expect(await started(batchB)).toHaveLength(1);
    expect(await batchInput(`events-${batchA}`)).toEqual(crashedBeforeStart.map((r) => r.id));
  });
});
