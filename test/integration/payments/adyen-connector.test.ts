import { HTTPClient, SDK } from '@formance/formance-sdk';
import type { Types } from '@adyen/api-library';
import { api, apiUrl } from '../../support/http';
import { suffix, testDb } from '../../support/payments';
import { isDefined, pollUntil } from '../../support/eventually';
import { adyenNotification, startAdyenFake } from '../../support/adyen-fake';
import type { Db } from '../../../db/knex';

/**
 * The Adyen connector against a fake of Adyen's Management API (test/support/adyen-fake.ts: the library's model types
 * as the answers' shapes, requests validated), and standard notifications signed with Adyen's library.
 */
const API_KEY = 'AQE_test_key';
const COMPANY = 'TestCompany';
const USER = 'adyen-notifier';
const PASSWORD = 'notifier-secret';
// 101 merchant accounts: the fetch needs two pages of 100.
const MERCHANTS: Types.management.Merchant[] = Array.from({ length: 101 }, (_, i) => ({
  id: `Merchant${String(i).padStart(3, '0')}`,
  name: `Shop ${i}`,
  companyId: COMPANY,
  status: 'Active',
  primarySettlementCurrency: i === 0 ? 'JPY' : 'EUR',
}));

type Item = Parameters<typeof adyenNotification>[0][number];
const item = (fields: Partial<Item> & Pick<Item, 'eventCode' | 'pspReference'>): Item =>
  ({
    amount: { currency: 'EUR', value: 1050 },
    eventDate: '2026-11-28T10:00:00+01:00',
    merchantAccountCode: 'Merchant001',
    merchantReference: `order-${suffix()}`,
    paymentMethod: 'visa',
    success: 'true',
    ...fields,
  }) as Item;
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const match = (filter: Record<string, string>) =>
  encodeURIComponent(JSON.stringify({ $and: Object.entries(filter).map(([key, value]) => ({ $match: { [key]: value } })) }));

async function waitForTask(taskID: string): Promise<any> {
  return pollUntil(
    async () => {
      const task = (await api('GET', `/api/payments/v3/tasks/${encodeURIComponent(taskID)}`)).body.data;
      return task?.status && task.status !== 'PROCESSING' ? task : undefined;
    },
    isDefined,
    { timeoutMs: 30_000, what: `task ${taskID}` },
  );
}

describe('Adyen connector against a fake Management API', () => {
  let fake: Awaited<ReturnType<typeof startAdyenFake>>;
  let db: Db;
  let connectorID: string;
  const name = `adyen-${suffix()}`;

  beforeAll(async () => {
    fake = await startAdyenFake({ apiKey: API_KEY, companyID: COMPANY, merchants: MERCHANTS });
    db = testDb();
    // The first merchants page answers 429 once: Temporal retries the fetch.
    fake.failNext((r) => r.path.endsWith('/merchants'), 429);
    const res = await api('POST', '/api/payments/v3/connectors/install/adyen', {
      body: { name, apiKey: API_KEY, companyID: COMPANY, webhookUsername: USER, webhookPassword: PASSWORD, endpoint: fake.url, pollingPeriod: '1h' },
    });
    expect(res.status).toBe(202);
    connectorID = res.body.data;
  });
  afterAll(async () => {
    await db?.destroy();
    await fake?.close();
  });

  const route = () => `/api/payments/v3/connectors/webhooks/${connectorID}`;
  const hmacKey = () => [...fake.hmacKeys.values()][0];
  const deliver = (payload: string, authorization: string | null = basic(USER, PASSWORD)) =>
    api('POST', route(), {
      token: null,
      rawBody: payload,
      headers: { 'Content-Type': 'application/json', ...(authorization ? { Authorization: authorization } : {}) },
    });
  const payment = async (reference: string) =>
    (await api('GET', `/api/payments/v3/payments?pageSize=100&query=${match({ connectorID, reference })}`)).body.cursor.data[0];
  const storedEvents = async () => Number((await db('payments_webhook_events').where({ connector_id: connectorID }).count('* as n'))[0].n);
  const adjustments = async () =>
    Number(
      (
        await db('payments_adjustments')
          .join('payments_payments', 'payments_payments.id', 'payments_adjustments.payment_id')
          .where({ connector_id: connectorID })
          .count('* as n')
      )[0].n,
    );

  it('install registers a standard company webhook with basic auth and an HMAC key, then fetches every merchant account', async () => {
    const count = await pollUntil(
      async () => Number((await db('payments_accounts').where({ connector_id: connectorID }).count('* as n'))[0].n),
      (n) => n === MERCHANTS.length,
      { timeoutMs: 30_000, what: 'the 101 merchant accounts' },
    );
    expect(count).toBe(101);
    const first = (await api('GET', `/api/payments/v3/accounts?pageSize=100&query=${match({ connectorID, reference: 'Merchant000' })}`)).body.cursor
      .data[0];
    expect(first).toMatchObject({
      reference: 'Merchant000',
      type: 'INTERNAL',
      name: 'Shop 0',
      defaultAsset: 'JPY/0',
      metadata: { 'adyen/status': 'Active' },
    });

    const created = fake.requests.filter((r) => r.method === 'POST' && r.path === `/v3/companies/${COMPANY}/webhooks`);
    expect(created).toHaveLength(1);
    expect(created[0].body).toMatchObject({
      active: true,
      communicationFormat: 'json',
      filterMerchantAccountType: 'allAccounts',
      type: 'standard',
      description: connectorID,
      username: USER,
      password: PASSWORD,
    });
    expect((created[0].body as any).url).toMatch(new RegExp(`/api/payments/v3/connectors/webhooks/${connectorID}$`));
    const [webhookID] = [...fake.webhooks.keys()];
    expect(fake.requests.some((r) => r.method === 'POST' && r.path === `/v3/companies/${COMPANY}/webhooks/${webhookID}/generateHmac`)).toBe(true);
    const state = await db('payments_connector_states').where({ connector_id: connectorID, kind: 'webhooks' }).first();
    expect(state.state.endpoints).toEqual([{ id: webhookID, connect: false, secret: hmacKey() }]);

    // Every request carried the key; the merchants were paged by 100, after one 429 retried by Temporal.
    expect(fake.requests.every((r) => r.apiKey === API_KEY)).toBe(true);
    const merchants = fake.requests.filter((r) => r.path === `/v3/companies/${COMPANY}/merchants`);
    expect(merchants.map((r) => [r.status, r.query.get('pageNumber'), r.query.get('pageSize')])).toEqual([
      [429, '1', '100'],
      [200, '1', '100'],
      [200, '2', '100'],
    ]);
  });

  it("config reads without its secrets; capabilities are Formance's Adyen ones", async () => {
    const config = (await api('GET', `/api/payments/v3/connectors/${connectorID}/config`)).body.data;
    expect(config).toEqual({
      provider: 'Adyen',
      name,
      apiKey: '********',
      companyID: COMPANY,
      webhookUsername: USER,
      webhookPassword: '********',
      endpoint: fake.url,
      pollingPeriod: '1h',
    });
    const capabilities = (await api('GET', `/api/payments/v3/connectors/${connectorID}/capabilities`)).body.data;
    expect(capabilities).toEqual(['FETCH_ACCOUNTS', 'CREATE_WEBHOOKS', 'TRANSLATE_WEBHOOKS']);
    const schedules = (await api('GET', `/api/payments/v3/connectors/${connectorID}/schedules`)).body.cursor.data;
    expect(schedules.map((s: any) => s.id)).toEqual([expect.stringMatching(/-accounts$/)]);
  });

  it('a signed AUTHORISATION is a payment at once; its CAPTURE an adjustment; the same notification again changes nothing', async () => {
    const psp = `PSP${suffix()}`;
    const auth = await deliver(adyenNotification([item({ eventCode: 'AUTHORISATION' as Item['eventCode'], pspReference: psp })], hmacKey()));
    expect(auth.status).toBe(204);
    expect(await payment(psp)).toMatchObject({
      reference: psp,
      type: 'PAY-IN',
      status: 'AUTHORISATION',
      amount: 1050,
      asset: 'EUR/2',
      scheme: 'visa',
      destinationAccountID: expect.any(String),
      metadata: { 'adyen/eventCode': 'AUTHORISATION', 'adyen/pspReference': psp },
    });

    const capture = adyenNotification(
      [
        item({
          eventCode: 'CAPTURE' as Item['eventCode'],
          pspReference: `CAP${suffix()}`,
          originalReference: psp,
          eventDate: '2026-11-28T11:00:00+01:00',
        }),
      ],
      hmacKey(),
    );
    expect((await deliver(capture)).status).toBe(204);
    const captured = await payment(psp);
    expect(captured.status).toBe('CAPTURE');
    expect(captured.adjustments.map((a: any) => a.status)).toEqual(['CAPTURE', 'AUTHORISATION']);

    const events = await storedEvents();
    const adjusted = await adjustments();
    expect((await deliver(capture)).status).toBe(204);
    expect(await storedEvents()).toBe(events);
    expect(await adjustments()).toBe(adjusted);
    expect((await payment(psp)).adjustments).toHaveLength(2);
  });

  it("amounts are Adyen's minor units unchanged, with Adyen's precision per currency", async () => {
    const cases: Array<[string, number | bigint, string]> = [
      ['JPY', 1500, 'JPY/0'],
      ['KWD', 12345, 'KWD/3'],
      ['IDR', 250000, 'IDR/0'], // ISO 4217 says 2; Adyen says 0
      ['CLP', 9900, 'CLP/2'], // ISO 4217 says 0; Adyen says 2
      ['USD', 9007199254740993n, 'USD/2'], // past 2^53: kept exact
    ];
    const refs = cases.map(() => `PSP${suffix()}`);
    const signed = adyenNotification(
      cases.map(([currency, value], i) =>
        item({ eventCode: 'AUTHORISATION' as Item['eventCode'], pspReference: refs[i], amount: { currency, value } }),
      ),
      hmacKey(),
    );
    expect(signed).toContain('"value":9007199254740993');
    expect((await deliver(signed)).status).toBe(204);
    for (const [i, [, value, asset]] of cases.entries()) {
      const p = await payment(refs[i]);
      expect([p.asset, String(p.amount)]).toEqual([asset, String(value)]);
    }
  });

  it('a bad HMAC, a missing signature, wrong or missing basic auth are 401 and store nothing', async () => {
    const psp = `PSP${suffix()}`;
    const good = adyenNotification([item({ eventCode: 'AUTHORISATION' as Item['eventCode'], pspReference: psp })], hmacKey());
    const events = await storedEvents();
    const wrongKey = adyenNotification([item({ eventCode: 'AUTHORISATION' as Item['eventCode'], pspReference: psp })], 'AA'.repeat(32));
    const altered = good.replace('"value":1050', '"value":999999');
    const unsigned = JSON.stringify({
      live: 'false',
      notificationItems: [{ NotificationRequestItem: { ...item({ eventCode: 'AUTHORISATION' as Item['eventCode'], pspReference: psp }) } }],
    });
    // One good item and one forged one: the whole notification is refused.
    const mixed = JSON.stringify({
      live: 'false',
      notificationItems: [JSON.parse(good).notificationItems[0], JSON.parse(wrongKey).notificationItems[0]],
    });
    for (const payload of [wrongKey, altered, unsigned, mixed]) {
      const res = await deliver(payload);
      expect([res.status, res.body.errorCode]).toEqual([401, 'UNAUTHORIZED']);
    }
    for (const authorization of [basic(USER, 'wrong'), basic('someone', PASSWORD), null]) {
      const res = await deliver(good, authorization);
      expect([res.status, res.body.errorCode]).toEqual([401, 'UNAUTHORIZED']);
    }
    expect(await payment(psp)).toBeUndefined();
    expect(await storedEvents()).toBe(events);
  });

  it('install refuses a config without companyID, and a webhookUsername with a colon (400 naming the field)', async () => {
    const noCompany = await api('POST', '/api/payments/v3/connectors/install/adyen', { body: { name: `a-${suffix()}`, apiKey: 'k' } });
    expect(noCompany.status).toBe(400);
    expect(noCompany.body.errorMessage).toMatch(/companyID/);
    const colon = await api('POST', '/api/payments/v3/connectors/install/adyen', {
      body: { name: `a-${suffix()}`, apiKey: 'k', companyID: COMPANY, webhookUsername: 'a:b', webhookPassword: 'p', endpoint: fake.url },
    });
    expect(colon.status).toBe(400);
    expect(colon.body.errorMessage).toMatch(/webhookUsername/);
  });

  it('uninstall removes the webhook at Adyen; a later notification is 404', async () => {
    const [webhookID] = [...fake.webhooks.keys()];
    const res = await api('DELETE', `/api/payments/v3/connectors/${connectorID}`);
    expect(res.status).toBe(202);
    const task = await waitForTask(res.body.data.taskID);
    expect(task.status).toBe('SUCCEEDED');
    expect(fake.requests.some((r) => r.method === 'DELETE' && r.path === `/v3/companies/${COMPANY}/webhooks/${webhookID}` && r.status === 204)).toBe(
      true,
    );
    expect(fake.webhooks.size).toBe(0);
    const late = await deliver(
      adyenNotification([item({ eventCode: 'AUTHORISATION' as Item['eventCode'], pspReference: `PSP${suffix()}` })], 'AA'.repeat(32)),
    );
    expect(late.status).toBe(404);
  });
});

/**
 * The Adyen connector through Formance's official SDK (payments.v3): the SDK's `V3AdyenConfig` has no `endpoint`
 * (Formance's plugin calls Adyen's own hosts), so a request hook of the SDK's HTTP client adds the fake's URL to the
 * install body, the only departure from Formance's shape.
 */
describe('Adyen connector through the Formance SDK (payments.v3)', () => {
  let fake: Awaited<ReturnType<typeof startAdyenFake>>;
  let v3: SDK['payments']['v3'];
  beforeAll(async () => {
    fake = await startAdyenFake({ apiKey: 'sdk-key', companyID: 'SdkCompany', merchants: MERCHANTS.slice(0, 2) });
    const httpClient = new HTTPClient();
    httpClient.addHook('beforeRequest', async (request) => {
      if (!new URL(request.url).pathname.endsWith('/connectors/install/adyen')) return request;
      const body = JSON.parse(await request.clone().text());
      return new Request(request.url, { method: request.method, headers: request.headers, body: JSON.stringify({ ...body, endpoint: fake.url }) });
    });
    v3 = new SDK({
      serverURL: apiUrl(),
      httpClient,
      security: { clientID: process.env.TEST_CLIENT_ID!, clientSecret: process.env.TEST_CLIENT_SECRET!, tokenURL: '/api/auth/oauth/token' },
    }).payments.v3;
  });
  afterAll(async () => {
    await fake?.close();
  });

  it('installConnector, getConnectorConfig, listConnectors, getConnectorCapabilities, listConnectorConfigs, uninstallConnector', async () => {
    const name = `sdk-adyen-${suffix()}`;
    const installed = await v3.installConnector({
      connector: 'adyen',
      v3ConnectorConfig: { provider: 'Adyen', name, apiKey: 'sdk-key', companyID: 'SdkCompany', pollingPeriod: '1h' },
    });
    expect(installed.statusCode).toBe(202);
    const connectorID = installed.v3InstallConnectorResponse!.data;
    expect(Buffer.from(connectorID, 'base64url').toString()).toContain('"Provider":"adyen"');

    const config = (await v3.getConnectorConfig({ connectorID })).v3GetConnectorConfigResponse!.data;
    expect(config).toMatchObject({ provider: 'Adyen', name, apiKey: '********', companyID: 'SdkCompany', pollingPeriod: '1h' });
    const listed = (await v3.listConnectors({ pageSize: 1000 })).v3ConnectorsCursorResponse!.cursor.data.find((c) => c.id === connectorID)!;
    expect(listed).toMatchObject({ id: connectorID, provider: 'ADYEN', scheduledForDeletion: false });
    expect((await v3.getConnectorCapabilities({ connectorID })).v3ConnectorCapabilityResponse!.data).toEqual([
      'FETCH_ACCOUNTS',
      'CREATE_WEBHOOKS',
      'TRANSLATE_WEBHOOKS',
    ]);
    const configs = (await v3.listConnectorConfigs()).v3ConnectorConfigsResponse!;
    expect(Object.keys((configs as any).data?.adyen ?? (configs as any).adyen ?? {})).toEqual(expect.arrayContaining(['apiKey', 'companyID']));

    await pollUntil(
      async () => {
        const accounts = (await v3.listAccounts({ pageSize: 100, query: { $match: { connectorID } } })).v3AccountsCursorResponse!.cursor.data;
        return accounts.length === 2 ? accounts : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'the merchant accounts' },
    );
    expect(fake.webhooks.size).toBe(1);

    const uninstalled = await v3.uninstallConnector({ connectorID });
    expect(uninstalled.statusCode).toBe(202);
    const { taskID } = uninstalled.v3UninstallConnectorResponse!.data;
    const task = await pollUntil(
      async () => {
        const t = (await v3.getTask({ taskID })).v3GetTaskResponse!.data;
        return t.status !== 'PROCESSING' ? t : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'the uninstall task' },
    );
    expect(task.status).toBe('SUCCEEDED');
    expect(fake.webhooks.size).toBe(0);
  });
});
