import crypto from 'node:crypto';
import { api } from '../../support/http';
import { paymentsOf, suffix, testDb } from '../../support/payments';
import { isDefined, pollUntil } from '../../support/eventually';
import type { Db } from '../../../db/knex';

/**
 * A connector plugin the repository does not ship (test/fixtures/payments-plugin/fixturebank.ts), loaded by the API and
 * the worker from PAYMENTS_CONNECTOR_PLUGINS (set for the whole integration tier by test/support/global-setup.ts): it
 * is installed, configured, fetched and sent webhooks exactly as the built-in ones are, with no line of the payments
 * area or the API naming it.
 */
const SECRET = 'fixture-signing-secret';
const sign = (body: string, secret = SECRET) => `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
const encode = (connectorID: string, reference: string) =>
  Buffer.from(JSON.stringify({ ConnectorID: connectorID, Reference: reference })).toString('base64url');
const byConnector = (connectorID: string) => encodeURIComponent(JSON.stringify({ $match: { connectorID } }));

describe('a connector plugin loaded from PAYMENTS_CONNECTOR_PLUGINS', () => {
  let db: Db;
  let connectorID: string;
  const name = `fixture-${suffix()}`;
  const install = (body: Record<string, unknown>) => api('POST', '/api/payments/v3/connectors/install/fixturebank', { body });

  beforeAll(async () => {
    db = testDb();
    const res = await install({ name, bankCode: 'FIXB', accounts: 3, apiKey: 'fixture-key', signingSecret: SECRET, pollingPeriod: '1h' });
    expect(res.status).toBe(202);
    connectorID = res.body.data;
  });
  afterAll(async () => db?.destroy());

  it('is listed with its own capabilities and config fields', async () => {
    const capabilities = await api('GET', '/api/payments/v3/connectors/capabilities');
    expect(capabilities.body.data.fixturebank).toEqual(['FETCH_ACCOUNTS', 'FETCH_BALANCES', 'FETCH_PAYMENTS', 'TRANSLATE_WEBHOOKS']);
    expect(capabilities.body.data.stripe).toContain('CREATE_WEBHOOKS');
    const own = await api('GET', `/api/payments/v3/connectors/${connectorID}/capabilities`);
    expect(own.body.data).toEqual(['FETCH_ACCOUNTS', 'FETCH_BALANCES', 'FETCH_PAYMENTS', 'TRANSLATE_WEBHOOKS']);
    const configs = await api('GET', '/api/payments/v3/connectors/configs');
    expect(configs.body.data.fixturebank).toMatchObject({
      name: { dataType: 'string', required: true },
      bankCode: { dataType: 'string', required: true },
      accounts: { dataType: 'integer', required: false, defaultValue: '2' },
      signingSecret: { dataType: 'string', required: false },
    });
  });

  it('is listed by v3, and left out of v1, whose connector names (and Formance SDK) cannot name it', async () => {
    const v3 = await api('GET', '/api/payments/v3/connectors?pageSize=1000');
    expect(v3.body.cursor.data.map((c: { id: string }) => c.id)).toContain(connectorID);
    const v1 = await api('GET', '/api/payments/connectors');
    expect(v1.status).toBe(200);
    const providers = v1.body.data.map((c: { provider: string }) => c.provider);
    expect(providers).not.toContain('FIXTUREBANK');
    expect(v1.body.data.map((c: { connectorID: string }) => c.connectorID)).not.toContain(connectorID);
  });

  it("has an install operation in the OpenAPI document, with its config schema's members", async () => {
    const doc = (await api('GET', '/api/openapi.json')).body;
    const install = doc.paths['/api/payments/v3/connectors/install/fixturebank'].post;
    expect(install.operationId).toBe('installConnector_fixturebank');
    // The plugin's own example is the operation's request example.
    expect(install.requestBody.content['application/json'].example).toEqual({
      name: 'fixturebank-main',
      bankCode: 'FXBK',
      apiKey: 'fixture-key',
      pollingPeriod: '1m',
    });
    const schema = install.requestBody.content['application/json'].schema;
    expect(Object.keys(schema.properties).sort()).toEqual([
      'accounts',
      'apiKey',
      'bankCode',
      'name',
      'pageSize',
      'pollingPeriod',
      'provider',
      'signingSecret',
    ]);
    expect(schema.required).toEqual(['name', 'bankCode', 'apiKey']);
  });

  it('validates the install body with its own schema and check, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: `x-${suffix()}`, bankCode: 'fixb', apiKey: 'k' }, 'body.bankCode'],
      [{ name: `x-${suffix()}`, bankCode: 'FIXB', apiKey: 'k', accounts: 21 }, 'body.accounts'],
      [{ name: `x-${suffix()}`, bankCode: 'FIXB' }, 'apiKey'],
      [{ name: `x-${suffix()}`, bankCode: 'FIXB', apiKey: 'k', colour: 'red' }, 'colour'],
      [{ name: `x-${suffix()}`, bankCode: 'TEST', apiKey: 'k' }, 'body.bankCode: TEST is reserved'],
    ];
    for (const [body, field] of cases) {
      const res = await install(body);
      expect({ status: res.status, code: res.body.errorCode }).toEqual({ status: 400, code: 'VALIDATION' });
      expect(res.body.errorMessage).toContain(field);
    }
    const names = (await db('payments_connectors').where({ provider: 'fixturebank' }).select('name')).map((r) => r.name);
    expect(names).toEqual([name]);
  });

  it('never reads its secrets back; an update sending them as read keeps them', async () => {
    const read = await api('GET', `/api/payments/v3/connectors/${connectorID}/config`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({
      provider: 'Fixturebank',
      name,
      bankCode: 'FIXB',
      accounts: 3,
      apiKey: '********',
      signingSecret: '********',
      pollingPeriod: '1h',
    });
    const update = await api('PATCH', `/api/payments/v3/connectors/${connectorID}/config`, { body: { ...read.body.data, pollingPeriod: '2h' } });
    expect(update.status).toBe(204);
    const stored = (await db('payments_connectors').where({ id: connectorID }).first()).config;
    expect(stored).toMatchObject({ apiKey: 'fixture-key', signingSecret: SECRET, pollingPeriod: '2h', accounts: 3 });
    const bad = await api('PATCH', `/api/payments/v3/connectors/${connectorID}/config`, { body: { ...read.body.data, bankCode: 'no' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errorMessage).toContain('body.bankCode');
  });

  it('fetches its accounts, balances and payments (the payments by cursor, once)', async () => {
    const accounts = await pollUntil(
      async () => {
        const res = await api('GET', `/api/payments/v3/accounts?pageSize=100&query=${byConnector(connectorID)}`);
        return res.body.cursor?.data?.length === 3 ? res.body.cursor.data : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: "the fixture's accounts" },
    );
    expect(accounts.map((a: { reference: string }) => a.reference).sort()).toEqual(['FIXB-acc-1', 'FIXB-acc-2', 'FIXB-acc-3']);
    const payments = await pollUntil(
      () => paymentsOf(connectorID),
      (list) => list.length === 3,
      { timeoutMs: 30_000, what: "the fixture's payments" },
    );
    expect(payments.map((p) => [p.reference, p.amount]).sort()).toEqual([
      ['FIXB-pay-1', 1000],
      ['FIXB-pay-2', 2000],
      ['FIXB-pay-3', 3000],
    ]);
    const balances = await pollUntil(
      async () => (await api('GET', `/api/payments/v3/accounts/${encode(connectorID, 'FIXB-acc-2')}/balances`)).body.cursor?.data,
      (list) => Array.isArray(list) && list.length === 1,
      { timeoutMs: 30_000, what: "the fixture's balances" },
    );
    expect(balances[0]).toMatchObject({ asset: 'EUR/2', balance: 200 });
    const cursor = await db('payments_connector_states').where({ connector_id: connectorID, kind: 'fetch:payments' }).first();
    expect(cursor?.state).toEqual({ last: 3 });
  });

  it('accepts a signed webhook once and refuses a bad signature with 401, storing nothing', async () => {
    const route = `/api/payments/v3/connectors/webhooks/${connectorID}`;
    const event = JSON.stringify({
      id: `evt-${suffix()}`,
      type: 'payment.settled',
      payment: { reference: 'FIXB-hook-1', amount: 4200, account: 'FIXB-acc-1' },
    });
    const deliver = (body: string, signature: string) =>
      api('POST', route, { token: null, rawBody: body, headers: { 'Content-Type': 'application/json', 'X-Fixture-Signature': signature } });

    const forged = JSON.stringify({ id: `evt-${suffix()}`, type: 'payment.settled', payment: { reference: 'FIXB-forged', amount: 1 } });
    const refused = await deliver(forged, sign(forged, 'another-secret'));
    expect({ status: refused.status, code: refused.body.errorCode }).toEqual({ status: 401, code: 'UNAUTHORIZED' });
    expect((await deliver(event, '')).status).toBe(401);

    expect((await deliver(event, sign(event))).status).toBeLessThan(300);
    expect((await deliver(event, sign(event))).status).toBeLessThan(300);
    const payments = await paymentsOf(connectorID);
    expect(payments.filter((p) => p.reference === 'FIXB-hook-1').map((p) => [p.amount, p.metadata])).toEqual([[4200, { via: 'webhook' }]]);
    expect(payments.some((p) => p.reference === 'FIXB-forged')).toBe(false);
    const events = await db('payments_webhook_events').where({ connector_id: connectorID });
    expect(events).toHaveLength(1);

    const unreadable = await deliver('{"not":"an event"}', sign('{"not":"an event"}'));
    expect({ status: unreadable.status, code: unreadable.body.errorCode }).toEqual({ status: 400, code: 'VALIDATION' });
  });
});
