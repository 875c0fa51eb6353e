import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { api } from '../../support/http';
import { isDefined, pollUntil } from '../../support/eventually';
import { paymentsOf, suffix } from '../../support/payments';

/**
 * A provider implementing the generic connector's REST contract, on 127.0.0.1, misbehaving on purpose: the first
 * GET /payments answers 500, the second one hangs past the connector's timeout, the first POST /transfers for a key
 * executes the transfer but answers 500 (a lost response). Temporal's retries must get through without duplicates.
 */
function startProvider() {
  const calls: Record<string, number> = {};
  const transfers = new Map<string, any>();
  const authorizations = new Set<string>();
  const payments = [
    {
      reference: 'g1',
      type: 'PAY-IN',
      status: 'SUCCEEDED',
      amount: 700,
      asset: 'USD/2',
      createdAt: '2024-05-01T00:00:00Z',
      destinationAccountReference: 'acc-1',
    },
    {
      reference: 'g2',
      type: 'PAYOUT',
      status: 'PENDING',
      amount: 300,
      asset: 'USD/2',
      createdAt: '2024-05-02T00:00:00Z',
      sourceAccountReference: 'acc-1',
    },
  ];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url as string, 'http://127.0.0.1');
    const key = `${req.method} ${url.pathname}`;
    calls[key] = (calls[key] ?? 0) + 1;
    authorizations.add(req.headers.authorization ?? '');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (key === 'GET /accounts') {
        // Two pages, to exercise `next`.
        if (url.searchParams.get('cursor') === 'p2') return send(200, { data: [{ reference: 'ext-1', type: 'EXTERNAL' }] });
        return send(200, { data: [{ reference: 'acc-1', name: 'Operating' }], next: 'p2' });
      }
      if (key === 'GET /balances') return send(200, { data: [{ accountReference: 'acc-1', asset: 'USD/2', amount: 12345 }] });
      if (key === 'GET /payments') {
        if (calls[key] === 1) return send(500, { error: 'boom' });
        // A provider that answers too late (after the connector's 500 ms timeout): a simulated latency, not a wait.
        if (calls[key] === 2) return void setTimeout(() => send(200, { data: payments }), 3000);
        return send(200, { data: payments });
      }
      if (key === 'POST /transfers') {
        const idem = req.headers['idempotency-key'] as string;
        const input = JSON.parse(body);
        const first = !transfers.has(idem);
        if (first)
          transfers.set(idem, {
            reference: `tr-${transfers.size + 1}`,
            type: 'TRANSFER',
            status: 'SUCCEEDED',
            amount: input.amount,
            asset: input.asset,
            createdAt: new Date().toISOString(),
            destinationAccountReference: input.destinationAccountReference,
          });
        return first ? send(500, { error: 'lost response' }) : send(200, { data: transfers.get(idem) });
      }
      if (key === 'POST /payouts') return send(422, { error: 'payouts are not enabled' });
      return send(404, { error: 'not found' });
    });
  });
  return { server, calls, transfers, authorizations };
}

describe('generic HTTP connector against a local provider', () => {
  const provider = startProvider();
  let connectorID: string;

  beforeAll(async () => {
    await new Promise<void>((resolve) => provider.server.listen(0, '127.0.0.1', resolve));
    const { port } = provider.server.address() as AddressInfo;
    const res = await api('POST', '/api/payments/v3/connectors/install/generic', {
      body: { name: `generic-${suffix()}`, endpoint: `http://127.0.0.1:${port}`, apiKey: 'secret-key', pollingPeriod: '1s', timeout: '500ms' },
    });
    expect(res.status).toBe(202);
    connectorID = res.body.data;
  });
  afterAll(async () => {
    await api('DELETE', `/api/payments/v3/connectors/${connectorID}`);
    provider.server.closeAllConnections();
    await new Promise((resolve) => provider.server.close(resolve));
  });

  it('fetches through a 500 and a timeout, retried by Temporal, with nothing duplicated', async () => {
    const list = await pollUntil(
      async () => {
        const rows = await paymentsOf(connectorID);
        return rows.length >= 2 ? rows : undefined;
      },
      isDefined,
      { timeoutMs: 45_000, what: 'generic payments' },
    );
    expect(provider.calls['GET /payments']).toBeGreaterThanOrEqual(3);
    // Wait for more fetch cycles of the same data, then check nothing was added twice.
    const before = provider.calls['GET /payments'];
    await pollUntil(async () => (provider.calls['GET /payments'] >= before + 2 ? true : undefined), isDefined, {
      timeoutMs: 30_000,
      what: 'two more cycles',
    });
    const again = await paymentsOf(connectorID);
    expect(again.map((p) => p.reference).sort()).toEqual(['g1', 'g2']);
    expect(list.find((p) => p.reference === 'g1')).toMatchObject({
      provider: 'GENERIC',
      amount: 700,
      scheme: 'other',
      adjustments: [expect.objectContaining({ status: 'SUCCEEDED' })],
    });
    expect(again.find((p) => p.reference === 'g1').adjustments).toHaveLength(1);
    expect([...provider.authorizations]).toEqual(['Bearer secret-key']);
    expect((await api('GET', `/api/payments/v3/connectors/${connectorID}/config`)).body.data.apiKey).toBe('********');
  }, 120_000); // its two waits (45 s and 30 s) are liveness bounds a loaded machine may need, beyond jest's default 60 s

  it('a transfer whose first response is lost is retried with the same Idempotency-Key and executed once', async () => {
    const accountID = (ref: string) => Buffer.from(JSON.stringify({ ConnectorID: connectorID, Reference: ref })).toString('base64url');
    const res = await api('POST', '/api/payments/v3/payment-initiations?noValidation=true', {
      body: {
        reference: `gt-${suffix()}`,
        connectorID,
        type: 'TRANSFER',
        amount: 55,
        asset: 'USD/2',
        sourceAccountID: accountID('acc-1'),
        destinationAccountID: accountID('ext-1'),
      },
    });
    expect(res.status).toBe(202);
    const id = res.body.data.paymentInitiationID;
    const pi = await pollUntil(
      async () => {
        const data = (await api('GET', `/api/payments/v3/payment-initiations/${id}`)).body.data;
        return ['PROCESSED', 'FAILED'].includes(data.status) ? data : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'the transfer' },
    );
    expect(pi.status).toBe('PROCESSED');
    expect(provider.calls['POST /transfers']).toBe(2);
    expect(provider.transfers.size).toBe(1);
    expect(pi.relatedPaymentIDs).toHaveLength(1);
  });

  it('a 4xx from the provider fails the initiation at once, without retries', async () => {
    const accountID = (ref: string) => Buffer.from(JSON.stringify({ ConnectorID: connectorID, Reference: ref })).toString('base64url');
    const res = await api('POST', '/api/payments/v3/payment-initiations?noValidation=true', {
      body: { reference: `gp-${suffix()}`, connectorID, type: 'PAYOUT', amount: 5, asset: 'USD/2', destinationAccountID: accountID('ext-1') },
    });
    const id = res.body.data.paymentInitiationID;
    const pi = await pollUntil(
      async () => {
        const data = (await api('GET', `/api/payments/v3/payment-initiations/${id}`)).body.data;
        return data.status === 'FAILED' ? data : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'the payout to fail' },
    );
    expect(pi.error).toMatch(/422/);
    // The provider's error body is logged, never echoed to readers of the initiation.
    expect(pi.error).not.toContain('payouts are not enabled');
    expect(provider.calls['POST /payouts']).toBe(1);
  });
});
