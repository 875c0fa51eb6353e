import { Webhook } from 'standardwebhooks';
import { WorkflowNotFoundError, type Client, type Connection } from '@temporalio/client';
import { createDb, type Db } from '../../../db/knex';
import { emitEvents } from '../../../db/outbox';
import { api } from '../../support/http';
import { temporalClient } from '../../support/temporal';
import { isTruthy, pollUntil } from '../../support/eventually';
import { startReceiver } from '../../support/webhook-receiver';
import { webhooksSettled } from '../../support/webhooks';

const configs = '/api/webhooks/configs';
const deliveries = '/api/webhooks/deliveries';

describe('webhook deliveries', () => {
  let db: Db;
  let client: Client;
  let connection: Connection;
  const created: string[] = [];
  const receivers: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    db = createDb(process.env.TEST_DATABASE_URL as string, { poolMax: 2 });
    ({ client, connection } = await temporalClient());
  });
  afterAll(async () => {
    for (const id of created) await api('DELETE', `${configs}/${id}`);
    await Promise.all(receivers.map((r) => r.close()));
    await connection.close();
    await db.destroy();
  });

  /** A receiver and a config subscribed to a type unique to the test, so other tests' events never reach it. */
  async function subscribe(respond?: Parameters<typeof startReceiver>[0], type = `TEST_${Math.random().toString(36).slice(2, 10).toUpperCase()}`) {
    const receiver = await startReceiver(respond);
    receivers.push(receiver);
    const { body } = await api('POST', configs, { body: { endpoint: receiver.url, eventTypes: [`ledger.${type.toLowerCase()}`] } });
    created.push(body.data.id);
    return { receiver, config: body.data, type };
  }

  async function emit(type: string, payload: unknown = { ledger: 'main' }): Promise<string> {
    const [id] = await db.transaction((trx) => emitEvents(trx, [{ app: 'ledger', type, payload }]));
    return id;
  }

  /** The event batch workflow that carried an event (its id is set on the outbox row before the workflow starts). */
  async function batchWorkflowOf(eventId: string) {
    const { batch_id: batchId } = await db('events_outbox').where({ id: eventId }).first('batch_id');
    return client.workflow.getHandle(`events-${batchId}`);
  }

  /** The delivery of an event once it has `status` (and, for a pending one, `attempted` attempts at least). */
  async function deliveryOf(eventId: string, status: string, attempted = 0) {
    return pollUntil(
      async () => {
        const { body } = await api('GET', `${deliveries}?eventID=${eventId}`);
        const found = body.cursor.data[0];
        return found?.status === status && found.attemptCount >= attempted ? found : undefined;
      },
      isTruthy,
      { timeoutMs: 30_000, what: `delivery of ${eventId} to be ${status}` },
    );
  }

  it('delivers a committed ledger transaction event, signed, with the exact payload', async () => {
    const { receiver, config } = await subscribe(undefined, 'COMMITTED_TRANSACTIONS');
    const payload = {
      ledger: 'main',
      transactions: [{ id: 0, postings: [{ source: 'world', destination: 'users:1', amount: 123456789012345678901234567890n, asset: 'USD' }] }],
    };
    const eventId = await emit('COMMITTED_TRANSACTIONS', payload);
    const delivery = await deliveryOf(eventId, 'succeeded');
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request.body).toContain('"amount":123456789012345678901234567890');
    const verified = new Webhook(config.secret).verify(request.body, request.headers as Record<string, string>) as Record<string, unknown>;
    expect(verified).toMatchObject({ id: eventId, app: 'ledger', version: 'v2', type: 'ledger.committed_transactions' });
    expect(request.headers['webhook-id']).toBe(delivery.id);
    expect(request.headers['formance-webhook-test']).toBe('false');
    expect(delivery).toMatchObject({
      eventID: eventId,
      configID: config.id,
      eventType: 'ledger.committed_transactions',
      attemptCount: 1,
      replayGeneration: 0,
      lastStatusCode: 200,
    });
    // Formance's shape: the list leaves the payload out, the detail has it; optional members are absent, never null.
    expect(delivery.payload).toBeUndefined();
    expect(Object.values(delivery)).not.toContain(null);
    expect(delivery).not.toHaveProperty('nextAttemptAt');
    expect(Date.parse(delivery.lastAttemptAt)).toBeGreaterThanOrEqual(Date.parse(delivery.createdAt));
    expect((await api('GET', `${deliveries}/${delivery.id}`)).body.data).toEqual({ ...delivery, payload: request.body });
    // The batch's own activity made the attempt: a delivery workflow is started only for a retry.
    await expect(client.workflow.getHandle(`webhook-${eventId}-${config.id}`).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  /** The endpoint drain workflow of a config's `episode`th queue, once it has ended. */
  async function endedDrain(configId: string, episode = 1) {
    const drain = client.workflow.getHandle(`webhook-endpoint-${configId}-${episode}`);
    await drain.result(); // the rows turn final inside its activity: the workflow may still be closing
    return drain;
  }

  it("retries 500 twice then 200: the batch makes the first attempt, the endpoint's one drain workflow the others, one webhook-id", async () => {
    const { receiver, config, type } = await subscribe((n) => ({ status: n <= 2 ? 500 : 200 }));
    const eventId = await emit(type);
    const delivery = await deliveryOf(eventId, 'succeeded');
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([delivery.id]));
    for (const request of receiver.received)
      expect(() => new Webhook(config.secret).verify(request.body, request.headers as Record<string, string>)).not.toThrow();
    const attempts = (await api('GET', `${deliveries}/${delivery.id}/attempts`)).body.cursor.data;
    // Newest first, as Formance lists them.
    expect(attempts.map((a: { attemptNumber: number; outcome: string; statusCode: number }) => [a.attemptNumber, a.outcome, a.statusCode])).toEqual([
      [3, 'succeeded', 200],
      [2, 'retryable_failure', 500],
      [1, 'retryable_failure', 500],
    ]);
    for (const attempt of attempts) expect(attempt).toMatchObject({ deliveryID: delivery.id, replayGeneration: 0, endpoint: config.endpoint });
    expect(attempts[0].durationMillis).toBeGreaterThanOrEqual(0);
    expect(delivery).toMatchObject({ attemptCount: 3, lastStatusCode: 200 });

    // The batch workflow made attempt 1 in its one sendWebhookBatch activity and started no child; the endpoint's
    // drain waited for each probe on a timer and made attempts 2 and 3 in its steps.
    const batch = await batchWorkflowOf(eventId);
    await batch.result();
    const batchHistory = await batch.fetchHistory();
    expect(batchHistory.events?.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean)).toEqual(['sendWebhookBatch']);
    expect(batchHistory.events?.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)).toEqual([]);
    await expect(client.workflow.getHandle(`webhook-${eventId}-${config.id}`).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    const drain = await endedDrain(config.id);
    expect((await drain.describe()).status.name).toBe('COMPLETED');
    const history = await drain.fetchHistory();
    expect(history.events?.filter((e) => e.timerStartedEventAttributes).length).toBeGreaterThanOrEqual(1);
    expect(
      history.events
        ?.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name)
        .filter(Boolean)
        .every((name) => name === 'webhookEndpointStep'),
    ).toBe(true);
    // Recovered: the endpoint is healthy again and its queue is empty.
    expect((await api('GET', `${configs}/${config.id}/stats`)).body.data).toMatchObject({ state: 'healthy', delivered: 1, pending: 0, queued: 0 });
  });

  it('keeps probing on a growing backoff: 500 four times, then 200, from one drain workflow', async () => {
    const { receiver, config, type } = await subscribe((n) => ({ status: n <= 4 ? 500 : 200 }));
    const eventId = await emit(type);
    const delivery = await deliveryOf(eventId, 'succeeded');
    expect(receiver.received).toHaveLength(5);
    expect(delivery.attemptCount).toBe(5);
    const gaps = receiver.received.slice(1).map((r, n) => r.at - receiver.received[n].at);
    // The test stack's schedule: 200 ms, then × 3 per failed probe, capped at 1 s.
    expect(gaps[3]).toBeGreaterThanOrEqual(950);
    const drain = await endedDrain(config.id);
    expect((await drain.describe()).status.name).toBe('COMPLETED');
    await expect(client.workflow.getHandle(`webhook-endpoint-${config.id}-2`).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  it("honours Retry-After on the first attempt: the endpoint's next probe waits it", async () => {
    const { receiver, type } = await subscribe((n) => (n === 1 ? { status: 429, headers: { 'Retry-After': '2' } } : { status: 200 }));
    const eventId = await emit(type);
    const delivery = await deliveryOf(eventId, 'succeeded');
    expect(receiver.received).toHaveLength(2);
    // The test stack's schedule would retry after 200 ms; the receiver asked for 2 s.
    expect(receiver.received[1].at - receiver.received[0].at).toBeGreaterThanOrEqual(1900);
    const attempts = (await api('GET', `${deliveries}/${delivery.id}/attempts`)).body.cursor.data;
    expect(attempts.map((a: { attemptNumber: number; statusCode: number }) => [a.attemptNumber, a.statusCode])).toEqual([
      [2, 200],
      [1, 429],
    ]);
    expect(Date.parse(attempts[0].createdAt) - Date.parse(attempts[1].createdAt)).toBeGreaterThanOrEqual(1900);
  });

  it('treats a 400 as final, and replays it on request as a new generation with the same webhook-id, once per Idempotency-Key', async () => {
    const { receiver, config, type } = await subscribe((n) => ({ status: n === 1 ? 400 : 204 }));
    const eventId = await emit(type);
    const failed = await deliveryOf(eventId, 'failed');
    // A 400 is final: no retry may come, and none can once the event's batch is done and the endpoint has no drain.
    await webhooksSettled(db, client, [eventId], [config.id]);
    expect(receiver.received).toHaveLength(1);
    expect(failed).toMatchObject({ attemptCount: 1, replayGeneration: 0, lastStatusCode: 400 });

    const key = { 'Idempotency-Key': `replay-${failed.id}` };
    const replay = await api('POST', `${deliveries}/${failed.id}/replay`, { headers: key });
    expect(replay.status).toBe(200);
    expect(replay.body.data).toMatchObject({ id: failed.id, status: 'pending', replayGeneration: 1, attemptCount: 0 });
    const done = await deliveryOf(eventId, 'succeeded');
    expect(done).toMatchObject({ attemptCount: 1, replayGeneration: 1, lastStatusCode: 204 });
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([failed.id, failed.id]);
    const attempts = (await api('GET', `${deliveries}/${failed.id}/attempts`)).body.cursor.data;
    expect(
      attempts.map((a: { outcome: string; replayGeneration: number; attemptNumber: number }) => [a.outcome, a.replayGeneration, a.attemptNumber]),
    ).toEqual([
      ['succeeded', 1, 1],
      ['permanent_failure', 0, 1],
    ]);
    // The replay went through the endpoint's queue, sent by its drain (the API started it through Temporal).
    expect((await (await endedDrain(config.id)).describe()).status.name).toBe('COMPLETED');

    // The same key answers the first replay again and replays nothing.
    const repeated = await api('POST', `${deliveries}/${failed.id}/replay`, { headers: key });
    expect([repeated.status, repeated.body]).toEqual([200, replay.body]);
    // The repeated key must send nothing: the delivery is left as it was (a replay is queued before it answers), and
    // with its endpoint's drain over nothing can send it again.
    expect((await api('GET', `${deliveries}/${failed.id}`)).body.data).toMatchObject({ status: 'succeeded', replayGeneration: 1 });
    await webhooksSettled(db, client, [eventId], [config.id]);
    expect(receiver.received).toHaveLength(2);
    // Another key replays the succeeded delivery too (any delivery can be resent, as in Svix and Formance).
    const again = await api('POST', `${deliveries}/${failed.id}/replay`, { headers: { 'Idempotency-Key': `again-${failed.id}` } });
    expect([again.status, again.body.data.status, again.body.data.replayGeneration]).toEqual([200, 'pending', 2]);
    const resent = await pollUntil(
      async () => {
        const { body } = await api('GET', `${deliveries}/${failed.id}`);
        return body.data.replayGeneration === 2 && body.data.status === 'succeeded' ? body.data : undefined;
      },
      isTruthy,
      { timeoutMs: 30_000, what: 'the second replay to succeed' },
    );
    expect(resent).toMatchObject({ attemptCount: 1, lastStatusCode: 204 });
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([failed.id, failed.id, failed.id]);
    expect(receiver.received[2].body).toBe(receiver.received[0].body);
    const otherDelivery = await api('POST', `${deliveries}/${crypto.randomUUID()}/replay`, { headers: key });
    expect([otherDelivery.status, otherDelivery.body.errorCode]).toEqual([409, 'CONFLICT']);
    expect((await api('POST', `${deliveries}/${crypto.randomUUID()}/replay`)).status).toBe(404);
    expect((await api('GET', `${deliveries}/nope`)).status).toBe(404);
  });

  it('refuses to replay a pending delivery (409); deactivating its config cancels it, and a delivery of an inactive config is not replayable', async () => {
    const { type } = await subscribe(() => ({ status: 503 }));
    const eventId = await emit(type);
    const retrying = await deliveryOf(eventId, 'pending', 1);
    expect(Date.parse(retrying.nextAttemptAt)).toBeGreaterThan(Date.parse(retrying.lastAttemptAt));
    const response = await api('POST', `${deliveries}/${retrying.id}/replay`);
    expect([response.status, response.body.errorCode]).toEqual([409, 'CONFLICT']);
    // Deactivating the config stops its retries: the next attempt cancels the delivery.
    await api('PUT', `${configs}/${retrying.configID}/deactivate`);
    const cancelled = await deliveryOf(eventId, 'cancelled');
    expect(cancelled.lastError).toBe('the config was deactivated');
    expect(cancelled).not.toHaveProperty('nextAttemptAt');
    expect((await api('POST', `${deliveries}/${retrying.id}/replay`)).status).toBe(409);
  });

  it('keeps verification working through a secret rotation: signed with the new and the previous secret', async () => {
    const { receiver, config, type } = await subscribe();
    const changed = (await api('PUT', `${configs}/${config.id}/secret/change`, { body: {} })).body.data;
    await deliveryOf(await emit(type), 'succeeded');
    const [request] = receiver.received;
    for (const secret of [config.secret, changed.secret]) {
      expect(() => new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).not.toThrow();
    }
  });

  it('sends nothing to inactive or unsubscribed configs, and lists deliveries by config', async () => {
    const { receiver, config, type } = await subscribe();
    await api('PUT', `${configs}/${config.id}/deactivate`);
    const other = await subscribe();
    const eventId = await emit(type);
    await deliveryOf(await emit(other.type), 'succeeded');
    // An inactive config must get nothing: checked once the event's batch is done (it makes every first attempt).
    await webhooksSettled(db, client, [eventId], [config.id]);
    expect(receiver.received).toHaveLength(0);
    expect((await api('GET', `${deliveries}?eventID=${eventId}`)).body.cursor.data).toEqual([]);
    const byConfig = (await api('GET', `${deliveries}?configId=${other.config.id}`)).body.cursor.data;
    expect(byConfig).toHaveLength(1);
    const created = Date.parse(byConfig[0].createdAt);
    const window = (from: number, to: number) =>
      `${deliveries}?configId=${other.config.id}&createdAtFrom=${new Date(from).toISOString()}&createdAtTo=${new Date(to).toISOString()}`;
    expect((await api('GET', window(created, created))).body.cursor.data).toHaveLength(1);
    expect((await api('GET', window(created + 1, created + 60_000))).body.cursor.data).toEqual([]);
    expect((await api('GET', `${deliveries}?configId=${other.config.id}&status=succeeded`)).body.cursor.data).toHaveLength(1);
    expect((await api('GET', `${deliveries}?configId=${other.config.id}&status=failed`)).body.cursor.data).toEqual([]);
    expect((await api('GET', `${deliveries}?status=unknown`)).status).toBe(400);
    expect((await api('GET', `${deliveries}?configId=nope`)).status).toBe(400);
    expect((await api('GET', `${deliveries}?configID=${other.config.id}`)).status).toBe(400);
  });
});
