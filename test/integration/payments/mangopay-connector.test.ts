import { HTTPClient, SDK } from '@formance/formance-sdk';
import { api, apiUrl } from '../../support/http';
import { suffix, testDb } from '../../support/payments';
import { isDefined, pollUntil } from '../../support/eventually';
import { startMangopayFake, type MangopayFake } from '../../support/mangopay-fake';
import { temporalClient } from '../../support/temporal';
import type { Db } from '../../../db/knex';

/**
 * The Mangopay connector against a fake Mangopay (test/support/mangopay-fake.ts: it checks the OAuth exchange, the
 * Bearer token, the client path, page/per_page and idempotency keys, and answers the SDK typings' shapes). A
 * marketplace: two users, a EUR wallet each, a JPY wallet, a bank account; pay-ins seeded; then a transfer and a
 * payout through payment initiations, and Mangopay's unsigned callbacks.
 */
const encode = (connectorID: string, reference: string) =>
  Buffer.from(JSON.stringify({ ConnectorID: connectorID, Reference: reference })).toString('base64url');
const match = (filter: object) => encodeURIComponent(JSON.stringify({ $match: filter }));

describe('Mangopay connector against a fake Mangopay', () => {
  let fake: MangopayFake;
  let db: Db;
  let connectorID: string;
  const name = `mangopay-${suffix()}`;
  let alice: string;
  let bob: string;
  let aliceEur: string;
  let bobEur: string;
  let aliceJpy: string;
  let aliceBank: string;
  let firstPayIn: string;

  beforeAll(async () => {
    fake = await startMangopayFake();
    db = testDb();
    alice = fake.addUser('Alice').Id;
    bob = fake.addUser('Bob').Id;
    aliceEur = fake.addWallet(alice, 'EUR', 0, 'Alice EUR').Id;
    bobEur = fake.addWallet(bob, 'EUR', 0, 'Bob EUR').Id;
    aliceJpy = fake.addWallet(alice, 'JPY', 0, 'Alice JPY').Id;
    aliceBank = fake.addBankAccount(alice, 'Alice Tester').Id;
    firstPayIn = fake.addPayIn(aliceEur, 10_000).Id;
    fake.addPayIn(aliceJpy, 5_000);
    const res = await api('POST', '/api/payments/v3/connectors/install/mangopay', {
      body: { name, clientID: fake.clientID, apiKey: fake.apiKey, endpoint: fake.url, pollingPeriod: '1h' },
    });
    expect(res.status).toBe(202);
    connectorID = res.body.data;
  });
  afterAll(async () => {
    if (connectorID) await api('DELETE', `/api/payments/v3/connectors/${connectorID}`);
    await db?.destroy();
    await fake?.close();
  });

  const accounts = async () => (await api('GET', `/api/payments/v3/accounts?pageSize=100&query=${match({ connectorID })}`)).body.cursor.data as any[];
  const payments = async () => (await api('GET', `/api/payments/v3/payments?pageSize=100&query=${match({ connectorID })}`)).body.cursor.data as any[];
  const paymentByRef = async (reference: string) => (await payments()).find((p) => p.reference === reference);
  const toMangopay = () => fake.requests.filter((r) => r.path !== '/v2.01/oauth/token');
  const paymentsCursor = async () =>
    (await db('payments_connector_states').where({ connector_id: connectorID, kind: 'fetch:payments' }).first()).state;
  /** Runs the payments schedule now (its period is 1h), as an operator's trigger in the Temporal UI would. */
  async function triggerPayments(): Promise<void> {
    const schedules = (await api('GET', `/api/payments/v3/connectors/${connectorID}/schedules`)).body.cursor.data as Array<{ id: string }>;
    const { client, connection } = await temporalClient();
    try {
      await client.schedule.getHandle(schedules.find((s) => s.id.endsWith('-payments'))!.id).trigger();
    } finally {
      await connection.close();
    }
  }
  let later: string;

  it('rejects a config without clientID, naming the field', async () => {
    const res = await api('POST', '/api/payments/v3/connectors/install/mangopay', {
      body: { name: `x-${suffix()}`, apiKey: 'k', endpoint: fake.url },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorCode: 'VALIDATION', errorMessage: expect.stringContaining('clientID') });
  });

  it("install exchanges the client credentials for a token, registers one hook per event type and fetches users' wallets and bank accounts", async () => {
    const list = await pollUntil(
      async () => {
        const found = await accounts();
        return found.length >= 4 ? found : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'Mangopay accounts fetched' },
    );
    const byRef = Object.fromEntries(list.map((a) => [a.reference, a]));
    expect(list).toHaveLength(4);
    expect(byRef[aliceEur]).toMatchObject({ type: 'INTERNAL', name: 'Alice EUR', defaultAsset: 'EUR/2', metadata: { userID: alice } });
    expect(byRef[bobEur]).toMatchObject({ type: 'INTERNAL', defaultAsset: 'EUR/2', metadata: { userID: bob } });
    expect(byRef[aliceJpy]).toMatchObject({ type: 'INTERNAL', defaultAsset: 'JPY/0' });
    expect(byRef[aliceBank]).toMatchObject({ type: 'EXTERNAL', name: 'Alice Tester', metadata: { userID: alice, 'mangopay/type': 'IBAN' } });

    // OAuth: the token exchange happened, and every API call carried a token the fake issued (it answers 401 otherwise).
    expect(fake.requests.some((r) => r.path === '/v2.01/oauth/token' && r.status === 200)).toBe(true);
    expect(toMangopay().every((r) => r.status !== 401 && /^Bearer /.test(String(r.headers.authorization)))).toBe(true);
    // Lists are paged with page and per_page; the users list is FETCH_OTHERS.
    const lists = toMangopay().filter((r) => r.method === 'GET' && /\/(users|wallets|bankaccounts|transactions|hooks)$/.test(r.path));
    expect(lists.length).toBeGreaterThan(0);
    expect(lists.every((r) => r.query.get('page') === '1' && r.query.get('per_page') === '100')).toBe(true);
    expect(lists.some((r) => r.path === `/v2.01/${fake.clientID}/users`)).toBe(true);

    // CREATE_WEBHOOKS: one hook per event type, at the connector's webhook route, each write with an idempotency key.
    await pollUntil(async () => (fake.hooks.length === 17 ? fake.hooks : undefined), isDefined, { timeoutMs: 30_000, what: 'hooks' });
    expect(new Set(fake.hooks.map((h) => h.EventType)).size).toBe(17);
    expect(fake.hooks.every((h) => h.Url.endsWith(`/api/payments/v3/connectors/webhooks/${connectorID}`))).toBe(true);
    const hookWrites = toMangopay().filter((r) => r.method === 'POST' && r.path.endsWith('/hooks'));
    expect(hookWrites).toHaveLength(17);
    expect(hookWrites.every((r) => /^[A-Za-z0-9-]{16,36}$/.test(String(r.headers['idempotency-key'])))).toBe(true);
    const state = await db('payments_connector_states').where({ connector_id: connectorID, kind: 'webhooks' }).first();
    expect(state.state.endpoints).toHaveLength(17);
  });

  it('fetches balances per wallet and payments from wallet transactions, then resumes after its cursor without duplicates', async () => {
    const balances = await pollUntil(
      async () => {
        const res = await api('GET', `/api/payments/v3/accounts/${encode(connectorID, aliceJpy)}/balances`);
        return res.body.cursor.data.length ? res.body.cursor.data : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'JPY wallet balance' },
    );
    expect(balances).toEqual([expect.objectContaining({ asset: 'JPY/0', balance: 5000 })]);

    const fetched = await pollUntil(
      async () => {
        const list = await payments();
        return list.length >= 2 ? list : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'payments fetched' },
    );
    expect(fetched).toHaveLength(2);
    expect(await paymentByRef(firstPayIn)).toMatchObject({
      type: 'PAY-IN',
      status: 'SUCCEEDED',
      amount: 10000,
      asset: 'EUR/2',
      destinationAccountID: encode(connectorID, aliceEur),
    });
    const cursor = await db('payments_connector_states').where({ connector_id: connectorID, kind: 'fetch:payments' }).first();
    expect(cursor.state.wallets[aliceEur]).toEqual({ after: fake.clock.now, ids: [firstPayIn] });

    // New transactions: one in the cursor's very second (it must not be missed), one later.
    const sameSecond = fake.addPayIn(bobEur, 700).Id;
    fake.clock.now += 5;
    later = fake.addPayIn(aliceEur, 300, 'CREATED').Id;
    const before = fake.requests.length;
    await triggerPayments();
    const all = await pollUntil(
      async () => {
        const list = await payments();
        return list.length >= 4 ? list : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'the triggered payments fetch' },
    );
    expect(all.map((p) => p.reference).sort()).toEqual([...fetched.map((p) => p.reference), sameSecond, later].sort());
    expect(await paymentByRef(later)).toMatchObject({ status: 'PENDING', amount: 300 });
    // The resumed run asked each wallet for what came after its cursor (a second before it, ids at that second skipped).
    const resumed = fake.requests.slice(before).filter((r) => r.path.endsWith(`/wallets/${aliceEur}/transactions`));
    expect(resumed[0].query.get('AfterDate')).toBe(String(fake.clock.now - 5 - 1));
    expect(resumed[0].query.get('Sort')).toBe('CreationDate:ASC');
    expect((await paymentsCursor()).pending).toEqual({ [later]: 'payins' });
  });

  it('reads a transaction fetched while CREATED again each run until it settles (polling as the safety net of callbacks)', async () => {
    fake.clock.now += 5;
    fake.settle(later, 'SUCCEEDED');
    await triggerPayments();
    const settled = await pollUntil(
      async () => {
        const p = await paymentByRef(later);
        return p?.status === 'SUCCEEDED' ? p : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'the pay-in read again' },
    );
    expect(settled.adjustments.map((a: any) => a.status)).toEqual(['SUCCEEDED', 'PENDING']);
    expect(fake.requests.some((r) => r.method === 'GET' && r.path === `/v2.01/${fake.clientID}/payins/${later}`)).toBe(true);
    expect((await paymentsCursor()).pending).toBeUndefined();
  });

  describe('payment initiations', () => {
    const base = '/api/payments/v3/payment-initiations';
    const initiate = async (body: Record<string, unknown>) => {
      const res = await api('POST', `${base}?noValidation=true`, {
        body: { reference: `pi-${suffix()}`, connectorID, description: 'test', ...body },
      });
      expect(res.status).toBe(202);
      return res.body.data.paymentInitiationID as string;
    };
    const settled = (id: string) =>
      pollUntil(
        async () => {
          const pi = (await api('GET', `${base}/${id}`)).body.data;
          return ['PROCESSED', 'FAILED'].includes(pi.status) ? pi : undefined;
        },
        isDefined,
        { timeoutMs: 60_000, what: `initiation ${id}` },
      );
    const writes = (path: string) => toMangopay().filter((r) => r.method === 'POST' && r.path === `/v2.01/${fake.clientID}${path}`);

    it("a transfer between two users' wallets: POST /transfers by the source wallet's owner, with an idempotency key", async () => {
      const id = await initiate({
        type: 'TRANSFER',
        amount: 1500,
        asset: 'EUR/2',
        sourceAccountID: encode(connectorID, aliceEur),
        destinationAccountID: encode(connectorID, bobEur),
      });
      expect((await settled(id)).status).toBe('PROCESSED');
      const [request] = writes('/transfers');
      expect(request.body).toMatchObject({
        AuthorId: alice,
        DebitedFunds: { Currency: 'EUR', Amount: 1500 },
        Fees: { Currency: 'EUR', Amount: 0 },
        DebitedWalletId: aliceEur,
        CreditedWalletId: bobEur,
      });
      expect(String(request.headers['idempotency-key'])).toMatch(/^[A-Za-z0-9-]{16,36}$/);
      const linked = (await api('GET', `${base}/${id}/payments`)).body.cursor.data;
      expect(linked).toEqual([
        expect.objectContaining({
          type: 'TRANSFER',
          status: 'SUCCEEDED',
          amount: 1500,
          asset: 'EUR/2',
          sourceAccountID: encode(connectorID, aliceEur),
          destinationAccountID: encode(connectorID, bobEur),
        }),
      ]);
    });

    it('an asset in another precision than the currency (EUR/3) is refused without calling Mangopay', async () => {
      const before = writes('/transfers').length;
      const id = await initiate({
        type: 'TRANSFER',
        amount: 15,
        asset: 'EUR/3',
        sourceAccountID: encode(connectorID, aliceEur),
        destinationAccountID: encode(connectorID, bobEur),
      });
      const failed = await settled(id);
      expect(failed.status).toBe('FAILED');
      expect(failed.error).toMatch(/EUR\/3.*minor unit/);
      expect(writes('/transfers')).toHaveLength(before);
    });

    let payoutReference: string;
    it('a payout to a bank account: POST /payouts/bankwire, pending until Mangopay settles it', async () => {
      const id = await initiate({
        type: 'PAYOUT',
        amount: 2000,
        asset: 'EUR/2',
        description: 'ORDER 42',
        sourceAccountID: encode(connectorID, aliceEur),
        destinationAccountID: encode(connectorID, aliceBank),
      });
      expect((await settled(id)).status).toBe('PROCESSED');
      const [request] = writes('/payouts/bankwire');
      expect(request.body).toMatchObject({
        AuthorId: alice,
        PaymentType: 'BANK_WIRE',
        DebitedFunds: { Currency: 'EUR', Amount: 2000 },
        DebitedWalletId: aliceEur,
        BankAccountId: aliceBank,
        BankWireRef: 'ORDER 42',
      });
      expect(String(request.headers['idempotency-key'])).toMatch(/^[A-Za-z0-9-]{16,36}$/);
      const [payment] = (await api('GET', `${base}/${id}/payments`)).body.cursor.data;
      expect(payment).toMatchObject({ type: 'PAYOUT', status: 'PENDING', amount: 2000, destinationAccountID: encode(connectorID, aliceBank) });
      payoutReference = payment.reference;
    });

    it("Mangopay's callback for the settled payout: the payout is read back and stored SUCCEEDED; the same callback again changes nothing", async () => {
      fake.clock.now += 10;
      fake.settle(payoutReference, 'SUCCEEDED');
      const call = fake.hookCall('PAYOUT_NORMAL_SUCCEEDED', payoutReference);
      const res = await api('GET', call, { token: null });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatch(/-webhook-[0-9a-f]{32}$/);
      const stored = await pollUntil(
        async () => {
          const p = await paymentByRef(payoutReference);
          return p?.status === 'SUCCEEDED' ? p : undefined;
        },
        isDefined,
        { timeoutMs: 30_000, what: 'the payout read back' },
      );
      expect(fake.requests.some((r) => r.method === 'GET' && r.path === `/v2.01/${fake.clientID}/payouts/${payoutReference}`)).toBe(true);
      expect(stored.adjustments.map((a: any) => a.status)).toEqual(['SUCCEEDED', 'PENDING']);
      const eventID = `${payoutReference}-PAYOUT_NORMAL_SUCCEEDED-${fake.clock.now}`;
      const events = async () =>
        Number((await db('payments_webhook_events').where({ connector_id: connectorID, event_id: eventID }).count('* as n'))[0].n);
      expect(await events()).toBe(1);
      const { client, connection } = await temporalClient();
      try {
        // The first run is over (its rows are committed before it closes), so the next delivery starts a run of its own.
        expect(await client.workflow.getHandle(res.body.data).result()).toBeGreaterThan(0);

        // Delivered again (Mangopay retries until it gets a 200): its workflow reads the payout again, finds the event
        // stored and writes nothing.
        const readsBefore = fake.requests.filter((r) => r.path.endsWith(`/payouts/${payoutReference}`)).length;
        const again = await api('GET', call, { token: null });
        expect(again.status).toBe(200);
        expect(again.body.data).toBe(res.body.data);
        expect(await client.workflow.getHandle(again.body.data).result()).toBe(0);
        expect(fake.requests.filter((r) => r.path.endsWith(`/payouts/${payoutReference}`)).length).toBe(readsBefore + 1);
      } finally {
        await connection.close();
      }
      expect(await events()).toBe(1);
      expect(await paymentByRef(payoutReference)).toEqual(stored);
    });

    it('a forged callback for an unknown resource stores nothing (Mangopay answers 404 to the read-back); a malformed one is 400', async () => {
      const count = (await payments()).length;
      const res = await api('GET', fake.hookCall('TRANSFER_NORMAL_SUCCEEDED', 'forged123'), { token: null });
      expect(res.status).toBe(200);
      const { client, connection } = await temporalClient();
      try {
        await expect(client.workflow.getHandle(res.body.data).result()).rejects.toThrow();
      } finally {
        await connection.close();
      }
      expect(fake.requests.some((r) => r.path.endsWith('/transfers/forged123') && r.status === 404)).toBe(true);
      expect((await payments()).length).toBe(count);
      expect(
        Number((await db('payments_webhook_events').where({ connector_id: connectorID }).whereLike('event_id', 'forged123-%').count('* as n'))[0].n),
      ).toBe(0);

      const bad = await api('GET', `/api/payments/v3/connectors/webhooks/${connectorID}?EventType=PAYOUT_NORMAL_SUCCEEDED&Date=1`, { token: null });
      expect(bad.status).toBe(400);
      expect(bad.body.errorMessage).toContain('RessourceId');
    });
  });

  describe('through the Formance SDK (payments.v3)', () => {
    it('installConnector (a Mangopay config), getConnectorConfig, listConnectors, getConnectorCapabilities, uninstallConnector', async () => {
      const v3 = new SDK({
        serverURL: apiUrl(),
        httpClient: new HTTPClient(),
        security: { clientID: process.env.TEST_CLIENT_ID!, clientSecret: process.env.TEST_CLIENT_SECRET!, tokenURL: '/api/auth/oauth/token' },
      }).payments.v3;
      const sdkName = `sdk-mangopay-${suffix()}`;
      const installed = await v3.installConnector({
        connector: 'mangopay',
        v3ConnectorConfig: {
          provider: 'Mangopay',
          name: sdkName,
          clientID: fake.clientID,
          apiKey: fake.apiKey,
          endpoint: fake.url,
          pollingPeriod: '1h',
        },
      });
      expect(installed.statusCode).toBe(202);
      const id = installed.v3InstallConnectorResponse!.data;
      expect(Buffer.from(id, 'base64url').toString()).toContain('"Provider":"mangopay"');

      const config = (await v3.getConnectorConfig({ connectorID: id })).v3GetConnectorConfigResponse!.data;
      expect(config).toMatchObject({ provider: 'Mangopay', name: sdkName, clientID: fake.clientID, apiKey: '********', endpoint: fake.url });

      const listed = (await v3.listConnectors({ pageSize: 1000 })).v3ConnectorsCursorResponse!.cursor.data.find((c) => c.id === id)!;
      expect(listed).toMatchObject({ id, provider: 'MANGOPAY', scheduledForDeletion: false });
      expect(listed.capabilities).toEqual(
        expect.arrayContaining(['FETCH_ACCOUNTS', 'FETCH_OTHERS', 'CREATE_TRANSFER', 'CREATE_PAYOUT', 'CREATE_WEBHOOKS', 'TRANSLATE_WEBHOOKS']),
      );
      expect((await v3.getConnectorCapabilities({ connectorID: id })).v3ConnectorCapabilityResponse!.data).toContain('FETCH_EXTERNAL_ACCOUNTS');

      const uninstalled = await v3.uninstallConnector({ connectorID: id });
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
    });
  });
});
