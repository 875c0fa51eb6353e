import { startReceiver } from '../support/webhook-receiver';
import { sdkClient } from './sdk-client';

/**
 * The configuration methods of Formance's `webhooks.v1` through the official SDK. The delivery methods
 * (getDeliveries, getDelivery, getDeliveryAttempts, replayDelivery, replayDeliveries) are not covered yet: see
 * docs/operations.md, "Contract suite".
 */
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

  test('testConfig answers Formance\'s attempt', async () => {
    const created = (await webhooks.insertConfig({ endpoint: receiver.url, eventTypes: ['ledger.committed_transactions'] })).configResponse!.data!;
    const attempt = (await webhooks.testConfig({ id: created.id })).attemptResponse!.data!;
    expect(attempt).toMatchObject({ statusCode: 200, status: 'success' });
    expect(attempt.config.id).toBe(created.id);
  });
});
