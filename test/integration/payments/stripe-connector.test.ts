import http from 'node:http';
import Stripe from 'stripe';
import { api } from '../../support/http';
import { suffix, testDb } from '../../support/payments';
import { isDefined, pollUntil } from '../../support/eventually';
import { temporalClient } from '../../support/temporal';
import type { Db } from '../../../db/knex';

/**
 * The Stripe connector against stripe-mock (Stripe's mock API server, started by the test platform), through a
 * recording proxy: the proxy shows what the worker sent to Stripe (idempotency keys, Stripe-Account, cursors) and can
 * answer a chosen request with an error. stripe-mock is stateless (it answers its fixtures, echoing a create's
 * parameters), so the assertions are on what the platform stored from those answers.
 */
const mockUrl = process.env.TEST_STRIPE_MOCK_URL;
const FIXTURE_CONNECTED = 'acct_1PgafTB7WZ01zgkW';
const FIXTURE_BANK_ACCOUNT = 'ba_1PgagAB7WZ01zgkWr3DySp2Q';
const FIXTURE_TXN = 'txn_1PgaxNB7WZ01zgkWEV3TLf40';
const SECRET = 'whsec_test_platform_secret';

interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  body: URLSearchParams;
  idempotencyKey?: string;
  stripeAccount?: string;
  status: number;
}

/** Forwards to stripe-mock and records each exchange; a request whose description names a failure gets it instead. */
function startProxy(target: string): Promise<{ url: string; requests: Recorded[]; close: () => Promise<void> }> {
  const requests: Recorded[] = [];
  const failedOnce = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      const url = new URL(req.url!, 'http://proxy');
      const body = new URLSearchParams(text);
      const entry: Recorded = {
        method: req.method!,
        path: url.pathname,
        query: url.searchParams,
        body,
        status: 0,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
        stripeAccount: req.headers['stripe-account'] as string | undefined,
      };
      requests.push(entry);
      const description = body.get('description') ?? '';
      const fail = (status: number, error: object) => {
        entry.status = status;
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error }));
      };
      if (description === 'stripe-400')
        return fail(400, { type: 'invalid_request_error', code: 'amount_too_large', message: 'Amount must be no more than $999,999.99' });
      if (description === 'stripe-429-once' && !failedOnce.has(entry.idempotencyKey ?? '')) {
        failedOnce.add(entry.idempotencyKey ?? '');
        return fail(429, { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests' });
      }
      const headers = { ...req.headers, host: new URL(target).host, 'content-length': String(Buffer.byteLength(text)) };
      const forward = http.request(`${target}${req.url}`, { method: req.method, headers }, (answer) => {
        entry.status = answer.statusCode!;
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', (error) => res.writeHead(502).end(String(error)));
      forward.end(text);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ url: `http://127.0.0.1:${port}`, requests, close: () => new Promise<void>((done) => server.close(() => done())) });
    }),
  );
}

const encode = (connectorID: string, reference: string) =>
  Buffer.from(JSON.stringify({ ConnectorID: connectorID, Reference: reference })).toString('base64url');
const match = (filter: object) => encodeURIComponent(JSON.stringify({ $match: filter }));

describe('Stripe connector against stripe-mock', () => {
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let db: Db;
  let connectorID: string;
  const name = `stripe-${suffix()}`;

  beforeAll(async () => {
    if (!mockUrl) {
      throw new Error(
        'stripe-mock is not running (TEST_STRIPE_MOCK_URL unset): run `bash scripts/setup-stripe-mock.sh`, which builds .tools/bin/stripe-mock, then run the tests again',
      );
    }
    proxy = await startProxy(mockUrl);
    db = testDb();
    const res = await api('POST', '/api/payments/v3/connectors/install/stripe', {
      body: { name, apiKey: 'sk_test_123', endpoint: proxy.url, pollingPeriod: '1h', webhookSecret: SECRET },
    });
    expect(res.status).toBe(202);
    connectorID = res.body.data;
  });
  afterAll(async () => {
    if (connectorID) await api('DELETE', `/api/payments/v3/connectors/${connectorID}`);
    await db?.destroy();
    await proxy?.close();
  });

  const accounts = async () => (await api('GET', `/api/payments/v3/accounts?pageSize=100&query=${match({ connectorID })}`)).body.cursor.data as any[];
  const payments = async () => (await api('GET', `/api/payments/v3/payments?pageSize=100&query=${match({ connectorID })}`)).body.cursor.data as any[];
  const paymentByRef = async (reference: string) => (await payments()).find((p) => p.reference === reference);

  it('install registers the webhook endpoints and fetches the platform account, connected accounts and external accounts', async () => {
    const list = await pollUntil(
      async () => {
        const found = await accounts();
        return found.length >= 3 ? found : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'Stripe accounts fetched' },
    );
    const byRef = Object.fromEntries(list.map((a) => [a.reference, a]));
    expect(byRef.root).toMatchObject({ type: 'INTERNAL', defaultAsset: 'USD/2', metadata: { 'stripe/accountID': expect.stringMatching(/^acct_/) } });
    expect(byRef[FIXTURE_CONNECTED]).toMatchObject({ type: 'INTERNAL', name: 'site@stripe.com', defaultAsset: 'USD/2' });
    expect(byRef[FIXTURE_BANK_ACCOUNT]).toMatchObject({
      type: 'EXTERNAL',
      name: 'STRIPE TEST BANK ••6789',
      metadata: { 'stripe/account': FIXTURE_CONNECTED },
    });

    // CREATE_WEBHOOKS: the platform's and the Connect endpoint, each with its own idempotency key and the public route.
    const creates = proxy.requests.filter((r) => r.method === 'POST' && r.path === '/v1/webhook_endpoints');
    expect(creates.map((r) => r.idempotencyKey).sort()).toEqual([`${connectorID}-account`, `${connectorID}-connect`]);
    expect(creates[0].body.get('url')).toMatch(new RegExp(`/api/payments/v3/connectors/webhooks/${connectorID}$`));
    expect(creates.find((r) => r.idempotencyKey!.endsWith('-connect'))!.body.get('connect')).toBe('true');
    const state = await db('payments_connector_states').where({ connector_id: connectorID, kind: 'webhooks' }).first();
    expect(state.state.endpoints).toEqual([
      expect.objectContaining({ id: expect.stringMatching(/^we_/), connect: false }),
      expect.objectContaining({ connect: true }),
    ]);
  });

  it('fetches balances per account and payments from balance transactions, then resumes after its cursor without duplicates', async () => {
    const balances = await pollUntil(
      async () => {
        const res = await api('GET', `/api/payments/v3/accounts/${encode(connectorID, 'root')}/balances`);
        return res.body.cursor.data.length ? res.body.cursor.data : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'root balance' },
    );
    expect(balances).toEqual([expect.objectContaining({ asset: 'USD/2', balance: 0 })]);
    expect(proxy.requests.some((r) => r.path === '/v1/balance' && r.stripeAccount === FIXTURE_CONNECTED)).toBe(true);

    const fetched = await pollUntil(
      async () => {
        const list = await payments();
        return list.length ? list : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'payments fetched' },
    );
    // stripe-mock's one balance transaction (a 100 USD charge), listed for the platform and the connected account.
    expect(fetched).toHaveLength(1);
    expect(fetched[0]).toMatchObject({
      type: 'PAY-IN',
      status: 'SUCCEEDED',
      amount: 100,
      asset: 'USD/2',
      metadata: { 'stripe/balanceTransaction': FIXTURE_TXN },
    });
    const cursor = await db('payments_connector_states').where({ connector_id: connectorID, kind: 'fetch:payments' }).first();
    expect(cursor.state).toEqual({ newest: { root: FIXTURE_TXN, [FIXTURE_CONNECTED]: FIXTURE_TXN } });

    // The next run (any worker: the cursor is in the database) asks only for what came after it.
    const schedules = (await api('GET', `/api/payments/v3/connectors/${connectorID}/schedules`)).body.cursor.data as Array<{ id: string }>;
    const paymentsSchedule = schedules.find((s) => s.id.endsWith('-payments'))!;
    const before = proxy.requests.length;
    const { client, connection } = await temporalClient();
    try {
      await client.schedule.getHandle(paymentsSchedule.id).trigger();
    } finally {
      await connection.close();
    }
    await pollUntil(
      async () => {
        const resumed = proxy.requests.slice(before).filter((r) => r.path === '/v1/balance_transactions');
        return resumed.length >= 2 ? resumed : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'the triggered payments fetch' },
    );
    const resumed = proxy.requests.slice(before).filter((r) => r.path === '/v1/balance_transactions');
    expect(resumed.every((r) => r.query.get('ending_before') === FIXTURE_TXN)).toBe(true);
    // stripe-mock answers its fixture again: upserted by reference, it adds nothing.
    await pollUntil(
      async () => {
        const run = await db('payments_connector_states').where({ connector_id: connectorID, kind: 'fetch:payments' }).first();
        return run.updated_at > cursor.updated_at ? run : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'the run to write its cursor' },
    );
    expect(await payments()).toHaveLength(1);
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
    const settled = (id: string, statuses = ['PROCESSED', 'FAILED']) =>
      pollUntil(
        async () => {
          const pi = (await api('GET', `${base}/${id}`)).body.data;
          return statuses.includes(pi.status) ? pi : undefined;
        },
        isDefined,
        { timeoutMs: 60_000, what: `initiation ${id}` },
      );
    const sent = (path: string, key: string) => proxy.requests.filter((r) => r.method === 'POST' && r.path === path && r.idempotencyKey === key);

    let transferID: string;
    it('a transfer to a connected account: POST /v1/transfers with the attempt as idempotency key; the transfer is the payment', async () => {
      transferID = await initiate({ type: 'TRANSFER', amount: 1500, asset: 'USD/2', destinationAccountID: encode(connectorID, FIXTURE_CONNECTED) });
      const pi = await settled(transferID);
      expect(pi.status).toBe('PROCESSED');
      const [request] = sent('/v1/transfers', `${transferID}-1`);
      expect(Object.fromEntries(request.body)).toMatchObject({
        amount: '1500',
        currency: 'usd',
        destination: FIXTURE_CONNECTED,
        description: 'test',
      });
      expect(request.stripeAccount).toBeUndefined();
      const linked = (await api('GET', `${base}/${transferID}/payments`)).body.cursor.data;
      expect(linked).toEqual([
        expect.objectContaining({ type: 'TRANSFER', status: 'SUCCEEDED', amount: 1500, asset: 'USD/2', reference: expect.stringMatching(/^tr_/) }),
      ]);
    });

    it('a payout from a connected account to its bank account: POST /v1/payouts on behalf of that account', async () => {
      const id = await initiate({
        type: 'PAYOUT',
        amount: 250000,
        asset: 'JPY/0',
        sourceAccountID: encode(connectorID, FIXTURE_CONNECTED),
        destinationAccountID: encode(connectorID, FIXTURE_BANK_ACCOUNT),
      });
      expect((await settled(id)).status).toBe('PROCESSED');
      const [request] = sent('/v1/payouts', `${id}-1`);
      // JPY has no minor unit at Stripe: JPY/0 goes as is.
      expect(Object.fromEntries(request.body)).toMatchObject({ amount: '250000', currency: 'jpy', destination: FIXTURE_BANK_ACCOUNT });
      expect(request.stripeAccount).toBe(FIXTURE_CONNECTED);
      const linked = (await api('GET', `${base}/${id}/payments`)).body.cursor.data;
      // stripe-mock's payout is in transit.
      expect(linked).toEqual([
        expect.objectContaining({
          type: 'PAYOUT',
          status: 'PENDING',
          amount: 250000,
          asset: 'JPY/0',
          destinationAccountID: encode(connectorID, FIXTURE_BANK_ACCOUNT),
        }),
      ]);
    });

    it("a three-decimal currency goes as is (KWD/3); an asset in another precision than Stripe's (JPY/2) is refused without calling Stripe", async () => {
      const kwd = await initiate({ type: 'TRANSFER', amount: 12345, asset: 'KWD/3', destinationAccountID: encode(connectorID, FIXTURE_CONNECTED) });
      expect((await settled(kwd)).status).toBe('PROCESSED');
      expect(Object.fromEntries(sent('/v1/transfers', `${kwd}-1`)[0].body)).toMatchObject({ amount: '12345', currency: 'kwd' });

      const jpy = await initiate({ type: 'TRANSFER', amount: 500, asset: 'JPY/2', destinationAccountID: encode(connectorID, FIXTURE_CONNECTED) });
      const failed = await settled(jpy);
      expect(failed.status).toBe('FAILED');
      expect(failed.error).toMatch(/JPY\/2.*minor unit/);
      expect(sent('/v1/transfers', `${jpy}-1`)).toHaveLength(0);
    });

    it("a 4xx from Stripe fails the initiation at once with Stripe's message; a 429 is retried with the same idempotency key", async () => {
      const refused = await initiate({
        type: 'TRANSFER',
        amount: 100,
        asset: 'USD/2',
        destinationAccountID: encode(connectorID, FIXTURE_CONNECTED),
        description: 'stripe-400',
      });
      const failed = await settled(refused);
      expect(failed.status).toBe('FAILED');
      expect(failed.error).toMatch(
        /Stripe answered 400 \(StripeInvalidRequestError, amount_too_large\) to POST \/v1\/transfers: Amount must be no more/,
      );
      expect(sent('/v1/transfers', `${refused}-1`)).toHaveLength(1);

      const limited = await initiate({
        type: 'TRANSFER',
        amount: 100,
        asset: 'USD/2',
        destinationAccountID: encode(connectorID, FIXTURE_CONNECTED),
        description: 'stripe-429-once',
      });
      expect((await settled(limited)).status).toBe('PROCESSED');
      expect(sent('/v1/transfers', `${limited}-1`).map((r) => r.status)).toEqual([429, 200]);
    });

    it("a reversal of the transfer: POST /v1/transfers/{id}/reversals with the reversal's id as key; REVERSED with a REFUNDED payment", async () => {
      const transfer = (await api('GET', `${base}/${transferID}/payments`)).body.cursor.data[0];
      const res = await api('POST', `${base}/${transferID}/reverse`, {
        body: { reference: `rev-${suffix()}`, amount: 500, asset: 'USD/2', description: 'partial' },
      });
      expect(res.status).toBe(202);
      const { paymentInitiationReversalID } = res.body.data;
      expect((await settled(transferID, ['REVERSED', 'REVERSE_FAILED'])).status).toBe('REVERSED');
      const [request] = sent(`/v1/transfers/${transfer.reference}/reversals`, paymentInitiationReversalID);
      expect(Object.fromEntries(request.body)).toMatchObject({ amount: '500', description: 'partial' });
      const linked = (await api('GET', `${base}/${transferID}/payments`)).body.cursor.data;
      expect(linked).toContainEqual(
        expect.objectContaining({
          type: 'TRANSFER',
          status: 'REFUNDED',
          amount: 500,
          asset: 'USD/2',
          reference: expect.stringMatching(/^trr_/),
          // stripe-mock answers its fixture's transfer id here (Stripe answers the reversed one).
          metadata: expect.objectContaining({ 'stripe/transfer': expect.stringMatching(/^tr_/) }),
        }),
      );
    });

    it('a payout cannot be reversed (no REVERSE_PAYOUT): 400 naming it', async () => {
      const id = await initiate({
        type: 'PAYOUT',
        amount: 100,
        asset: 'USD/2',
        sourceAccountID: encode(connectorID, FIXTURE_CONNECTED),
        destinationAccountID: encode(connectorID, FIXTURE_BANK_ACCOUNT),
      });
      expect((await settled(id)).status).toBe('PROCESSED');
      const res = await api('POST', `${base}/${id}/reverse`, {
        body: { reference: `rev-${suffix()}`, amount: 100, asset: 'USD/2', description: 'x' },
      });
      expect(res.status).toBe(400);
      expect(res.body.errorMessage).toMatch(/REVERSE_PAYOUT/);
    });
  });

  describe('signed webhook events', () => {
    const route = () => `/api/payments/v3/connectors/webhooks/${connectorID}`;
    const event = (id: string, type: string, object: object, extra: object = {}) =>
      JSON.stringify({
        id,
        object: 'event',
        api_version: '2024-06-20',
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type,
        data: { object },
        ...extra,
      });
    const deliver = (payload: string, secret = SECRET, headers: Record<string, string> = {}) =>
      api('POST', route(), {
        token: null,
        rawBody: payload,
        headers: {
          'Content-Type': 'application/json; charset=utf-8',
          'Stripe-Signature': Stripe.webhooks.generateTestHeaderString({ payload, secret }),
          ...headers,
        },
      });
    const storedEvents = async (eventID: string) =>
      Number((await db('payments_webhook_events').where({ connector_id: connectorID, event_id: eventID }).count('* as n'))[0].n);

    it('a payout event of a connected account is a payment at once; the same event again changes nothing; a later state adds an adjustment', async () => {
      const payout = {
        id: `po_${suffix()}`,
        object: 'payout',
        amount: 98765,
        currency: 'jpy',
        status: 'paid',
        created: 1_700_000_000,
        destination: FIXTURE_BANK_ACCOUNT,
        metadata: { order: '42' },
      };
      const paid = event(`evt_${suffix()}`, 'payout.paid', payout, { account: FIXTURE_CONNECTED });
      const res = await deliver(paid);
      expect(res.status).toBe(204);
      const stored = await paymentByRef(payout.id);
      expect(stored).toMatchObject({
        type: 'PAYOUT',
        status: 'SUCCEEDED',
        amount: 98765,
        asset: 'JPY/0',
        metadata: { order: '42' },
        sourceAccountID: encode(connectorID, FIXTURE_CONNECTED),
        destinationAccountID: encode(connectorID, FIXTURE_BANK_ACCOUNT),
      });
      expect(stored.adjustments).toHaveLength(1);

      expect((await deliver(paid)).status).toBe(204);
      expect(await paymentByRef(payout.id)).toEqual(stored);
      expect(await storedEvents(JSON.parse(paid).id)).toBe(1);

      const failed = event(
        `evt_${suffix()}`,
        'payout.failed',
        { ...payout, status: 'failed' },
        { account: FIXTURE_CONNECTED, created: Math.floor(Date.now() / 1000) + 1 },
      );
      expect((await deliver(failed)).status).toBe(204);
      const after = await paymentByRef(payout.id);
      expect(after.status).toBe('FAILED');
      expect(after.adjustments.map((a: any) => a.status)).toEqual(['FAILED', 'SUCCEEDED']);
    });

    it('a charge in a three-decimal currency on the platform account, with fractions elsewhere in the body, keeps its amount exact', async () => {
      const charge = {
        id: `ch_${suffix()}`,
        object: 'charge',
        amount: 1234,
        currency: 'kwd',
        status: 'succeeded',
        created: 1_700_000_100,
        payment_method_details: { type: 'card', card: { brand: 'visa' } },
        application_fee_percent: 12.5,
        metadata: {},
      };
      expect((await deliver(event(`evt_${suffix()}`, 'charge.succeeded', charge))).status).toBe(204);
      expect(await paymentByRef(charge.id)).toMatchObject({
        type: 'PAY-IN',
        status: 'SUCCEEDED',
        amount: 1234,
        asset: 'KWD/3',
        scheme: 'visa',
        destinationAccountID: encode(connectorID, 'root'),
      });
    });

    it('a bad signature is 401 and stores nothing; so is a missing one', async () => {
      const charge = { id: `ch_${suffix()}`, object: 'charge', amount: 500, currency: 'usd', status: 'succeeded', created: 1_700_000_200 };
      const eventID = `evt_${suffix()}`;
      const payload = event(eventID, 'charge.succeeded', charge);
      const wrong = await deliver(payload, 'whsec_not_the_secret');
      expect(wrong.status).toBe(401);
      expect(wrong.body.errorCode).toBe('UNAUTHORIZED');
      const altered = await api('POST', route(), {
        token: null,
        rawBody: payload.replace('"amount":500', '"amount":5000'),
        headers: { 'Content-Type': 'application/json', 'Stripe-Signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET }) },
      });
      expect(altered.status).toBe(401);
      const missing = await api('POST', route(), { token: null, rawBody: payload, headers: { 'Content-Type': 'application/json' } });
      expect(missing.status).toBe(401);
      expect(await paymentByRef(charge.id)).toBeUndefined();
      expect(await storedEvents(eventID)).toBe(0);
    });

    it('an event for a connector that does not exist is 404', async () => {
      const payload = event(`evt_${suffix()}`, 'charge.succeeded', {});
      const res = await api('POST', '/api/payments/v3/connectors/webhooks/unknown', {
        token: null,
        rawBody: payload,
        headers: { 'Content-Type': 'application/json', 'Stripe-Signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET }) },
      });
      expect(res.status).toBe(404);
    });
  });

  it("config reads without its secrets, capabilities are Formance's names, a config update keeps the endpoint and key", async () => {
    const config = (await api('GET', `/api/payments/v3/connectors/${connectorID}/config`)).body.data;
    expect(config).toEqual({ provider: 'Stripe', name, apiKey: '********', webhookSecret: '********', endpoint: proxy.url, pollingPeriod: '1h' });
    const capabilities = (await api('GET', `/api/payments/v3/connectors/${connectorID}/capabilities`)).body.data;
    expect(capabilities).toEqual([
      'FETCH_ACCOUNTS',
      'FETCH_BALANCES',
      'FETCH_EXTERNAL_ACCOUNTS',
      'FETCH_PAYMENTS',
      'CREATE_TRANSFER',
      'CREATE_PAYOUT',
      'CREATE_WEBHOOKS',
      'TRANSLATE_WEBHOOKS',
    ]);
    const res = await api('PATCH', `/api/payments/v3/connectors/${connectorID}/config`, {
      body: { provider: 'Stripe', name, apiKey: '********', pollingPeriod: '2h', pageSize: 25 },
    });
    expect(res.status).toBe(204);
    const row = await db('payments_connectors').where({ id: connectorID }).first();
    expect(row.config).toEqual({ name, apiKey: 'sk_test_123', endpoint: proxy.url, pollingPeriod: '2h' });
  });

  it('uninstall deletes the webhook endpoints it registered at Stripe, then forgets them', async () => {
    const before = await db('payments_connector_states').where({ connector_id: connectorID, kind: 'webhooks' }).first();
    const ids = (before.state.endpoints as Array<{ id: string }>).map((e) => e.id);
    expect(ids).toHaveLength(2);
    const res = await api('DELETE', `/api/payments/v3/connectors/${connectorID}`);
    expect(res.status).toBe(202);
    const task = await pollUntil(
      async () => {
        const t = (await api('GET', `/api/payments/v3/tasks/${encodeURIComponent(res.body.data.taskID)}`)).body.data;
        return t?.status && t.status !== 'PROCESSING' ? t : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'the uninstall task' },
    );
    expect(task.status).toBe('SUCCEEDED');
    const deletes = proxy.requests.filter((r) => r.method === 'DELETE' && r.path.startsWith('/v1/webhook_endpoints/'));
    expect(deletes.map((r) => [r.path, r.status])).toEqual(ids.map((id) => [`/v1/webhook_endpoints/${id}`, 200]));
    const after = await db('payments_connector_states').where({ connector_id: connectorID, kind: 'webhooks' }).first();
    expect(after.state.endpoints).toEqual([]);
  });

  it('install refuses a config without apiKey or with an endpoint that is not an origin (400 naming the field)', async () => {
    const noKey = await api('POST', '/api/payments/v3/connectors/install/stripe', { body: { name: `s-${suffix()}` } });
    expect(noKey.status).toBe(400);
    expect(noKey.body.errorMessage).toMatch(/apiKey/);
    const path = await api('POST', '/api/payments/v3/connectors/install/stripe', {
      body: { name: `s-${suffix()}`, apiKey: 'sk', endpoint: 'http://127.0.0.1:1/v1' },
    });
    expect(path.status).toBe(400);
    expect(path.body.errorMessage).toMatch(/body\.endpoint/);
  });
});
