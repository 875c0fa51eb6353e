import { Webhook } from 'standardwebhooks';
import type { Client, Connection } from '@temporalio/client';
import { createDb, type Db } from '../../../db/knex';
import { emitEvents } from '../../../db/outbox';
import { platformSelfTest } from '../../../workflows/self-test';
import { api } from '../../support/http';
import { taskQueue, temporalClient } from '../../support/temporal';
import { isTruthy, pollUntil } from '../../support/eventually';
import { closedPort, startReceiver } from '../../support/webhook-receiver';

const configs = '/api/webhooks/configs';
const deliveries = '/api/webhooks/deliveries';
const randomType = (prefix: string) => `${prefix}_${Math.random().toString(36).slice(2, 10).toUpperCase()}`;
const payloadOf = (body: string) => (JSON.parse(body) as { payload: { n: number } }).payload;

/**
 * Retries per endpoint: a failing endpoint's deliveries wait in its queue in PostgreSQL, sent by one drain workflow.
 * The test stack disables an endpoint after 10 s of failures (WEBHOOKS_DISABLE_AFTER_MS) and sends a queue one request
 * at a time (WEBHOOKS_DRAIN_CONCURRENCY=1).
 */
describe('endpoint queues', () => {
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

  async function subscribe(endpoint: string, eventTypes: string[]) {
    const config = (await api('POST', configs, { body: { endpoint, eventTypes } })).body.data;
    cleanups.push(() => api('DELETE', `${configs}/${config.id}`));
    return config as { id: string; secret: string; endpoint: string };
  }

  /** A receiver answering 503 while `down.value` is true, 200 otherwise. */
  async function switchableReceiver() {
    const down = { value: true };
    const receiver = await startReceiver(() => ({ status: down.value ? 503 : 200 }));
    cleanups.push(() => receiver.close());
    return { receiver, down };
  }

  const emit = (type: string, n: number) => db.transaction((trx) => emitEvents(trx, [{ app: 'ledger', type, payload: { n } }]));
  const stats = async (id: string) => (await api('GET', `${configs}/${id}/stats`)).body.data;

  it("keeps one workflow per dead endpoint however many events wait, and other areas' workflows complete meanwhile", async () => {
    const type = randomType('DEAD');
    const dead = [
      await subscribe(`http://127.0.0.1:${await closedPort()}/hook`, [`ledger.${type.toLowerCase()}`]),
      await subscribe(`http://127.0.0.1:${await closedPort()}/hook`, [`ledger.${type.toLowerCase()}`]),
    ];
    const running = `ExecutionStatus = "Running" AND WebhookConfigID IN ("${dead[0].id}", "${dead[1].id}")`;
    let most = 0;
    const sample = async () => {
      most = Math.max(most, await client.workflow.count(running).then((c) => c.count));
    };
    // 300 events in 30 transactions, ten at a time: a flood of batches, most of them queued behind the two drains.
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          db.transaction((trx) =>
            emitEvents(
              trx,
              Array.from({ length: 10 }, (_x, k) => ({ app: 'ledger', type, payload: { n: round * 100 + i * 10 + k } })),
            ),
          ),
        ),
      );
      await sample();
    }
    // Meanwhile a workflow of another area (the platform self-test, on the platform task queue) runs to completion.
    const selfTest = await client.workflow.execute(platformSelfTest, {
      taskQueue: taskQueue(),
      workflowId: `self-test-${Date.now()}`,
      args: ['during a webhook flood'],
    });
    expect(selfTest.echoed).toBe('during a webhook flood');

    const planned = async () =>
      Number(
        (
          await db('webhook_deliveries')
            .whereIn(
              'config_id',
              dead.map((c) => c.id),
            )
            .count({ n: '*' })
        )[0].n,
      );
    await pollUntil(
      async () => {
        await sample();
        return (await planned()) === 600;
      },
      isTruthy,
      { timeoutMs: 60_000, what: 'every delivery planned' },
    );
    await sample();
    // The bound: one drain per endpoint (visibility may lag, never over-count a closed run for long: sampled often).
    expect(most).toBeLessThanOrEqual(dead.length);
    // The events wait in PostgreSQL, not in Temporal: queued deliveries, one drain workflow id per endpoint's episode.
    for (const config of dead) {
      // The batch activities record their attempts after the requests: wait for the endpoint's state to show them.
      const state = await pollUntil(
        async () => {
          await sample();
          const s = await stats(config.id);
          return s.state !== 'healthy' ? s : undefined;
        },
        isTruthy,
        { timeoutMs: 30_000, what: 'the endpoint out of service' },
      );
      expect(['backoff', 'disabled']).toContain(state.state);
      expect(state.pending + state.failed).toBe(300);
      const drains = [];
      for await (const run of client.workflow.list({ query: `WebhookConfigID = "${config.id}"` })) drains.push(run.workflowId);
      expect(drains.every((id) => id.startsWith(`webhook-endpoint-${config.id}-`))).toBe(true);
    }
    // A dead endpoint is not called once per event: the deliveries queued behind its drain were never attempted.
    const attempted = Number(
      (
        await db('webhook_attempts as a')
          .join('webhook_deliveries as d', 'd.id', 'a.delivery_id')
          .whereIn(
            'd.config_id',
            dead.map((c) => c.id),
          )
          .count({ n: '*' })
      )[0].n,
    );
    expect(attempted).toBeLessThan(600);
  }, 180_000);

  it("drains a recovered endpoint's queue in order, each delivery once, signed", async () => {
    const type = randomType('ORDER');
    const { receiver, down } = await switchableReceiver();
    const config = await subscribe(receiver.url, [`ledger.${type.toLowerCase()}`]);
    await emit(type, 0);
    await pollUntil(async () => (await stats(config.id)).state === 'backoff', isTruthy, { timeoutMs: 30_000, what: 'the endpoint in backoff' });
    for (let n = 1; n < 20; n++) await emit(type, n);
    await pollUntil(async () => (await stats(config.id)).queued === 20, isTruthy, { timeoutMs: 30_000, what: 'twenty queued deliveries' });
    const during = await stats(config.id);
    expect(during).toMatchObject({ state: 'backoff', pending: 20, delivered: 0 });
    expect(during.backoff.failedProbes).toBeGreaterThanOrEqual(1);
    expect(Date.parse(during.lastFailureAt)).toBeGreaterThan(0);

    down.value = false;
    await pollUntil(async () => (await stats(config.id)).delivered === 20, isTruthy, { timeoutMs: 30_000, what: 'every delivery' });
    const delivered = receiver.received.map((r) => payloadOf(r.body).n);
    // Every failed request was a probe of the head of the queue (event 0); then the queue in order.
    const successes = delivered.slice(delivered.lastIndexOf(0));
    expect(successes).toEqual(Array.from({ length: 20 }, (_, n) => n));
    for (const request of receiver.received)
      expect(() => new Webhook(config.secret).verify(request.body, request.headers as Record<string, string>)).not.toThrow();
    const after = await stats(config.id);
    expect(after).toMatchObject({ state: 'healthy', delivered: 20, pending: 0, queued: 0, failed: 0 });
    expect(after).not.toHaveProperty('backoff');
    expect(Date.parse(after.lastSuccessAt)).toBeGreaterThanOrEqual(Date.parse(during.lastFailureAt));
  }, 90_000);

  it('disables an endpoint failing longer than the setting, says so in an event, and resends its failed deliveries once it is back', async () => {
    const type = randomType('DISABLE');
    const { receiver, down } = await switchableReceiver();
    const config = await subscribe(receiver.url, [`ledger.${type.toLowerCase()}`]);
    const watcher = await startReceiver();
    cleanups.push(() => watcher.close());
    await subscribe(watcher.url, ['webhooks.endpoint_disabled']);
    const since = new Date(Date.now() - 1000).toISOString();
    await emit(type, 1);
    await emit(type, 2);

    const disabled = await pollUntil(
      async () => {
        const s = await stats(config.id);
        return s.state === 'disabled' ? s : undefined;
      },
      isTruthy,
      { timeoutMs: 60_000, what: 'the endpoint disabled' },
    );
    expect(disabled.disabledReason).toMatch(/^no successful attempt for /);
    expect(disabled).toMatchObject({ failed: 2, pending: 0, queued: 0 });
    expect((await api('GET', `${configs}?id=${config.id}`)).body.cursor.data[0].active).toBe(false);
    const failed = (await api('GET', `${deliveries}?configId=${config.id}&status=failed`)).body.cursor.data;
    expect(failed.map((d: { lastError: string }) => d.lastError)).toEqual([
      expect.stringMatching(/^the endpoint was disabled/),
      expect.stringMatching(/^the endpoint was disabled/),
    ]);
    // The platform event, delivered to a config subscribed to it.
    const event = await pollUntil(() => watcher.received.map((r) => JSON.parse(r.body)).find((b) => b.payload.configId === config.id), isTruthy, {
      timeoutMs: 30_000,
      what: 'the endpoint_disabled event',
    });
    expect(event).toMatchObject({
      app: 'webhooks',
      type: 'webhooks.endpoint_disabled',
      payload: { configId: config.id, endpoint: config.endpoint, reason: disabled.disabledReason },
    });

    // Inactive: a recovery is refused. Activated again (state forgotten), the failed deliveries are resent on request.
    expect((await api('POST', `${configs}/${config.id}/recover`, { body: { since } })).status).toBe(409);
    down.value = false;
    await api('PUT', `${configs}/${config.id}/activate`);
    expect(await stats(config.id)).toMatchObject({ state: 'healthy' });
    const key = { 'Idempotency-Key': `recover-${config.id}` };
    const recovered = await api('POST', `${configs}/${config.id}/recover`, { body: { since }, headers: key });
    expect([recovered.status, recovered.body.data.replayed]).toEqual([200, 2]);
    expect((await api('POST', `${configs}/${config.id}/recover`, { body: { since }, headers: key })).body).toEqual(recovered.body);
    await pollUntil(async () => (await stats(config.id)).delivered === 2, isTruthy, { timeoutMs: 30_000, what: 'the recovered deliveries' });
    expect(
      receiver.received
        .map((r) => payloadOf(r.body).n)
        .slice(-2)
        .sort(),
    ).toEqual([1, 2]);
    const none = await api('POST', `${configs}/${config.id}/recover`, { body: { since } });
    expect(none.body.data.replayed).toBe(0);
    for (const body of [{}, { since: 'yesterday' }, { since, until: new Date(Date.parse(since) - 1).toISOString() }, { since, extra: 1 }]) {
      const response = await api('POST', `${configs}/${config.id}/recover`, { body });
      expect([response.status, response.body.errorCode]).toEqual([400, 'VALIDATION']);
    }
    expect((await api('POST', `${configs}/${crypto.randomUUID()}/recover`, { body: { since } })).status).toBe(404);
    expect((await api('GET', `${configs}/${crypto.randomUUID()}/stats`)).status).toBe(404);
  }, 120_000);

  it('disables an endpoint at once when it answers 410 Gone', async () => {
    const type = randomType('GONE');
    const receiver = await startReceiver(() => ({ status: 410 }));
    cleanups.push(() => receiver.close());
    const config = await subscribe(receiver.url, [`ledger.${type.toLowerCase()}`]);
    await emit(type, 1);
    const disabled = await pollUntil(
      async () => {
        const s = await stats(config.id);
        return s.state === 'disabled' ? s : undefined;
      },
      isTruthy,
      { timeoutMs: 30_000, what: 'the endpoint disabled' },
    );
    expect(disabled).toMatchObject({ disabledReason: 'the endpoint answered 410 Gone', failed: 1 });
    expect(receiver.received).toHaveLength(1);
    const [delivery] = (await api('GET', `${deliveries}?configId=${config.id}`)).body.cursor.data;
    expect(delivery).toMatchObject({ status: 'failed', lastStatusCode: 410, attemptCount: 1 });
    // Disabled: later events make no delivery.
    const [later] = await emit(type, 2);
    await pollUntil(async () => (await db('events_outbox').where({ id: later }).whereNotNull('dispatched_at').first()) !== undefined, isTruthy, {
      timeoutMs: 30_000,
      what: 'dispatch',
    });
    expect(receiver.received).toHaveLength(1);
    expect((await api('GET', `${deliveries}?eventID=${later}`)).body.cursor.data).toEqual([]);
  });

  /** A delivery row as a process that died between an attempt and its queueing, or before starting a drain, leaves it. */
  async function strandedDelivery(configId: string, endpoint: string, fields: Record<string, unknown>) {
    const id = crypto.randomUUID();
    const eventId = crypto.randomUUID();
    await db('webhook_deliveries').insert({
      id,
      event_id: eventId,
      config_id: configId,
      event_type: 'ledger.stranded',
      endpoint,
      payload: JSON.stringify({ payload: { n: 7 } }),
      ...fields,
    });
    return { id, eventId };
  }

  it("queues a delivery its batch attempted but left pending outside any queue, and the endpoint's drain delivers it", async () => {
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const config = await subscribe(receiver.url, [`ledger.${randomType('STRANDED').toLowerCase()}`]);
    const { id, eventId } = await strandedDelivery(config.id, receiver.url, { attempt_count: 1, last_status_code: 500 });
    // The batch runs again (a retried batch activity sees the same rows): the attempted delivery is not sent again
    // by the batch, it joins its endpoint's queue.
    const event = { id: eventId, date: new Date().toISOString(), app: 'ledger', version: 'v2', type: 'STRANDED', payload: '{}' };
    await client.workflow.execute('processEventBatch', { taskQueue: taskQueue(), workflowId: `events-stranded-${eventId}`, args: [[event]] });
    const delivered = await pollUntil(
      async () => {
        const { body } = await api('GET', `${deliveries}/${id}`);
        return body.data.status === 'succeeded' ? body.data : undefined;
      },
      isTruthy,
      { timeoutMs: 30_000, what: 'the queued delivery' },
    );
    expect(delivered).toMatchObject({ attemptCount: 2, lastStatusCode: 200 });
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([id]);
    expect((await client.workflow.getHandle(`webhook-endpoint-${config.id}-1`).describe()).type).toBe('webhookEndpoint');
  });

  it('starts the drain of a queue left without one (a crash between queueing and starting) at the next sweep', async () => {
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const config = await subscribe(receiver.url, [`ledger.${randomType('SWEEP').toLowerCase()}`]);
    const seq = (await db.raw(`SELECT nextval('webhook_delivery_queue_seq')::text AS v`)).rows[0].v;
    const { id } = await strandedDelivery(config.id, receiver.url, { queued: true, queue_seq: seq });
    expect(await stats(config.id)).toMatchObject({ queued: 1, pending: 1 });
    await pollUntil(async () => (await api('GET', `${deliveries}/${id}`)).body.data.status === 'succeeded', isTruthy, {
      timeoutMs: 30_000,
      what: "the swept queue's delivery",
    });
    expect(receiver.received).toHaveLength(1);
    expect(await stats(config.id)).toMatchObject({ state: 'healthy', delivered: 1, queued: 0 });
    await client.workflow.getHandle(`webhook-endpoint-${config.id}-1`).result();
  });
});
