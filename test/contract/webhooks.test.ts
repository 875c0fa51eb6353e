import { randomUUID } from 'node:crypto';
import { fund } from '../support/ledger-fixtures';
import { newLedger } from '../support/ledger';
import { isTruthy, pollUntil } from '../support/eventually';
import { startReceiver } from '../support/webhook-receiver';
import { sdkClient } from './sdk-client';

/** Every method of Formance's `webhooks.v1` through the official SDK: configs, then deliveries and their replays. */
const webhooks = sdkClient().webhooks.v1;

describe('contract: webhooks.v1 (configs) through the Formance SDK', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  test('insertConfig, getManyConfigs, updateConfig, deactivateConfig, activateConfig, changeConfigSecret, deleteConfig', async () => {
    const created = (await webhooks.insertConfig({ endpoint: receiver.url, eventTypes: ['ledger.committed_transactions'] })).configResponse!.data!;
    expect(created).toMatchObject({ endpoint: receiver.url, active: true });
    const listed = (await webhooks.getManyConfigs({ id: created.id })).configsResponse!.cursor.data;
    expect(listed.map((c) => c.id)).toEqual([created.id]);
    await webhooks.updateConfig({ id: created.id, configUser: { endpoint: receiver.url, eventTypes: ['ledger.saved_metadata'] } });
    expect((await webhooks.getManyConfigs({ id: created.id })).configsResponse!.cursor.data[0].eventTypes).toEqual(['ledger.saved_metadata']);
    expect((await webhooks.deactivateConfig({ id: created.id })).configResponse!.data!.active).toBe(false);
    expect((await webhooks.activateConfig({ id: created.id })).configResponse!.data!.active).toBe(true);
    const secret = Buffer.alloc(24, 7).toString('base64');
    expect((await webhooks.changeConfigSecret({ id: created.id, configChangeSecret: { secret } })).configResponse!.data!.secret).toBe(secret);
    expect((await webhooks.deleteConfig({ id: created.id })).statusCode).toBe(200);
  });

  test("testConfig answers Formance's attempt", async () => {
    const created = (await webhooks.insertConfig({ endpoint: receiver.url, eventTypes: ['ledger.committed_transactions'] })).configResponse!.data!;
    const attempt = (await webhooks.testConfig({ id: created.id })).attemptResponse!.data!;
    expect(attempt).toMatchObject({ statusCode: 200, status: 'success' });
    expect(attempt.config.id).toBe(created.id);
  });
});

describe('contract: webhooks.v1 (deliveries) through the Formance SDK', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let configId: string;
  let ledger: string;
  let since: Date;
  /** Our ledger's deliveries, all failed at their first attempt, by the account each transaction funded. */
  const failed = new Map<string, string>();

  // Real events: ledger transactions committed through the API reach a config subscribed to their type, whose
  // receiver refuses the first request of each delivery (400, final) and accepts the next ones (a replay).
  beforeAll(async () => {
    const seen = new Set<string>();
    receiver = await startReceiver((_n, request) => {
      const id = String(request.headers['webhook-id']);
      if (seen.has(id)) return { status: 200 };
      seen.add(id);
      return { status: 400 };
    });
    configId = (await webhooks.insertConfig({ endpoint: receiver.url, eventTypes: ['ledger.committed_transactions'] })).configResponse!.data!.id;
    since = new Date(Date.now() - 1000);
    ledger = await newLedger('contract-webhooks');
    const accounts = ['users:list', 'users:one', 'users:attempts', 'users:replay', 'users:bulk'];
    for (const account of accounts) await fund(ledger, account, 100);
    await pollUntil(
      async () => {
        const page = (await webhooks.getDeliveries({ configId, status: 'failed', createdAtFrom: since })).deliveriesResponse!.cursor;
        for (const delivery of page.data) {
          if (failed.has(delivery.id)) continue;
          const payload = (await webhooks.getDelivery({ id: delivery.id })).deliveryResponse!.data.payload ?? '';
          const account = accounts.find((a) => payload.includes(`"ledger":"${ledger}"`) && payload.includes(`"${a}"`));
          if (account) failed.set(account, delivery.id);
        }
        return failed.size === accounts.length;
      },
      isTruthy,
      { timeoutMs: 30_000, what: 'a failed delivery of each transaction' },
    );
  });
  afterAll(async () => {
    await webhooks.deleteConfig({ id: configId });
    await receiver.close();
  });

  const succeeded = (id: string) =>
    pollUntil(
      async () => {
        const delivery = (await webhooks.getDelivery({ id })).deliveryResponse!.data;
        return delivery.status === 'succeeded' ? delivery : undefined;
      },
      isTruthy,
      { timeoutMs: 30_000, what: `delivery ${id} to succeed` },
    );

  test('getDeliveries filters by config, status and creation time, without payloads', async () => {
    const page = (await webhooks.getDeliveries({ configId, status: 'failed', createdAtFrom: since, createdAtTo: new Date(), pageSize: 100 }))
      .deliveriesResponse!.cursor;
    const listed = page.data.find((d) => d.id === failed.get('users:list'))!;
    expect(listed).toMatchObject({
      configID: configId,
      eventType: 'ledger.committed_transactions',
      status: 'failed',
      attemptCount: 1,
      replayGeneration: 0,
      lastStatusCode: 400,
    });
    expect(listed.payload).toBeUndefined();
    expect(listed.nextAttemptAt).toBeUndefined();
    expect(listed.lastAttemptAt!.getTime()).toBeGreaterThanOrEqual(listed.createdAt.getTime());
    expect(page.data.every((d) => d.configID === configId && d.status === 'failed')).toBe(true);
    const later = (await webhooks.getDeliveries({ configId, createdAtFrom: new Date(Date.now() + 60_000) })).deliveriesResponse!.cursor;
    expect([later.data, later.hasMore]).toEqual([[], false]);
  });

  test('getDelivery returns the delivery with the payload sent', async () => {
    const delivery = (await webhooks.getDelivery({ id: failed.get('users:one')! })).deliveryResponse!.data;
    expect(delivery).toMatchObject({ id: failed.get('users:one'), configID: configId, status: 'failed', attemptCount: 1, replayGeneration: 0 });
    expect(JSON.parse(delivery.payload!)).toMatchObject({ app: 'ledger', type: 'ledger.committed_transactions', payload: { ledger } });
    expect(receiver.received.some((r) => r.headers['webhook-id'] === delivery.id && r.body === delivery.payload)).toBe(true);
  });

  test("getDeliveryAttempts lists Formance's delivery attempts", async () => {
    const id = failed.get('users:attempts')!;
    const attempts = (await webhooks.getDeliveryAttempts({ id })).deliveryAttemptsResponse!.cursor;
    expect(attempts.hasMore).toBe(false);
    expect(attempts.data).toEqual([
      expect.objectContaining({
        deliveryID: id,
        attemptNumber: 1,
        replayGeneration: 0,
        endpoint: receiver.url,
        outcome: 'permanent_failure',
        statusCode: 400,
      }),
    ]);
  });

  test('replayDelivery sends a failed delivery again as a new generation, once per Idempotency-Key', async () => {
    const id = failed.get('users:replay')!;
    const idempotencyKey = randomUUID();
    const replayed = (await webhooks.replayDelivery({ id, idempotencyKey })).deliveryResponse!.data;
    expect(replayed).toMatchObject({ id, status: 'pending', replayGeneration: 1, attemptCount: 0 });
    expect(await succeeded(id)).toMatchObject({ replayGeneration: 1, attemptCount: 1, lastStatusCode: 200 });
    const again = (await webhooks.replayDelivery({ id, idempotencyKey })).deliveryResponse!.data;
    expect(again).toEqual(replayed);
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === id)).toHaveLength(2);
    const attempts = (await webhooks.getDeliveryAttempts({ id })).deliveryAttemptsResponse!.cursor.data;
    expect(attempts.map((a) => [a.replayGeneration, a.attemptNumber, a.outcome])).toEqual([
      [1, 1, 'succeeded'],
      [0, 1, 'permanent_failure'],
    ]);
  });

  test('replayDeliveries replays the failed deliveries of a window, once per Idempotency-Key', async () => {
    const request = { createdAtFrom: since, configIds: [configId], statuses: ['failed' as const] };
    const idempotencyKey = randomUUID();
    const result = (await webhooks.replayDeliveries({ idempotencyKey, replayDeliveriesRequest: request })).replayDeliveriesResponse!.data;
    // Every delivery of the config still failed: ours but the one replayDelivery replayed.
    expect(result).toMatchObject({ replayed: failed.size - 1, expedited: 0, skipped: 0, hasMore: false });
    expect(result.nextCursor).toBeUndefined();
    expect(result.createdAtTo.getTime()).toBeLessThanOrEqual(Date.now());
    const again = (await webhooks.replayDeliveries({ idempotencyKey, replayDeliveriesRequest: request })).replayDeliveriesResponse!.data;
    expect(again).toEqual(result);
    expect(await succeeded(failed.get('users:bulk')!)).toMatchObject({ replayGeneration: 1, attemptCount: 1 });
    const left = (await webhooks.getDeliveries({ configId, status: 'failed', createdAtFrom: since })).deliveriesResponse!.cursor.data;
    expect(left).toEqual([]);
  });
});
