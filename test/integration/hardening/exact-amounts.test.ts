import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseJson, stringifyJson } from '../../../lib/json';
import { api } from '../../support/http';
import { balance } from '../../support/ledger-fixtures';
import { newLedger } from '../../support/ledger';
import { createWorkflow, runInstance } from '../../support/orchestration';
import { isDefined, isTruthy, pollUntil } from '../../support/eventually';
import { installSimulated, paymentsOf, simulatedDirectory, suffix, writeJson } from '../../support/payments';
import { newWallet } from '../../support/wallets';
import { startReceiver } from '../../support/webhook-receiver';

/**
 * Amounts of any size leave and re-enter the process exactly in every area: over HTTP, in SQL JSON columns, in Temporal
 * payloads, in events and webhook bodies, and in provider files and calls. Each amount is pushed through end to end and
 * read back as the same digits; a rounding or a serializer that cannot write a BigInt fails the amount's case.
 */
const AMOUNTS = [0n, 1n, 2n ** 53n - 1n, 2n ** 53n + 1n, 2n ** 63n, 2n ** 64n + 1n, 2n ** 128n, 2n ** 256n];
const POSITIVE = AMOUNTS.filter((a) => a > 0n);
const asBig = (value: unknown): bigint => BigInt(value as number | bigint);
const accountID = (connectorID: string, reference: string) =>
  Buffer.from(stringifyJson({ ConnectorID: connectorID, Reference: reference })).toString('base64url');
const settled = (id: string) =>
  pollUntil(
    async () => {
      const data = (await api('GET', `/api/payments/v3/payment-initiations/${id}`)).body.data;
      return ['PROCESSED', 'FAILED'].includes(data.status) ? data : undefined;
    },
    isDefined,
    { timeoutMs: 45_000, what: `initiation ${id} to settle` },
  );

describe('exact amounts from 0 to 2^256 through every area', () => {
  it('ledger: postings, Numscript, balances, and the committed-transaction webhook body keep every digit', async () => {
    const receiver = await startReceiver();
    const config = await api('POST', '/api/webhooks/configs', { body: { endpoint: receiver.url, eventTypes: ['ledger.committed_transactions'] } });
    expect(config.status).toBe(200);
    try {
      const ledger = await newLedger('exact');
      for (const amount of AMOUNTS) {
        const account = `users:${amount}`;
        const posted = await api('POST', `/api/ledger/v2/${ledger}/transactions`, {
          body: { postings: [{ source: 'world', destination: account, amount, asset: 'COIN' }] },
        });
        expect(posted.status).toBe(200);
        expect(asBig(posted.body.data.postings[0].amount)).toBe(amount);
        const read = await api('GET', `/api/ledger/v2/${ledger}/transactions/${posted.body.data.id}`);
        expect(asBig(read.body.data.postings[0].amount)).toBe(amount);
        expect(await balance(ledger, account, 'COIN')).toBe(amount);
      }
      // A Numscript send of zero moves nothing and is refused as a transaction without postings, as in Formance.
      for (const amount of POSITIVE) {
        const script = await api('POST', `/api/ledger/v2/${ledger}/transactions`, {
          body: {
            script: { plain: 'vars { monetary $m }\nsend $m (\n  source = @world\n  destination = @scripted\n)', vars: { m: `COIN ${amount}` } },
          },
        });
        expect(script.status).toBe(200);
        expect(asBig(script.body.data.postings[0].amount)).toBe(amount);
      }
      expect(await balance(ledger, 'scripted', 'COIN')).toBe(AMOUNTS.reduce((a, b) => a + b, 0n));
      // Every webhook body carries the exact digits of its amount as a JSON number.
      for (const amount of POSITIVE) {
        await pollUntil(() => receiver.received.some((r) => r.body.includes(ledger) && r.body.includes(`"amount":${amount},`)), isTruthy, {
          timeoutMs: 30_000,
          what: `webhook with ${amount}`,
        });
      }
    } finally {
      await api('DELETE', `/api/webhooks/configs/${config.body.data.id}`);
      await receiver.close();
    }
  });

  it('wallets: credit, balance, a pending debit of the whole balance and its confirmation', async () => {
    for (const amount of POSITIVE) {
      const id = await newWallet();
      expect((await api('POST', `/api/wallets/wallets/${id}/credit`, { body: { amount: { asset: 'COIN', amount } } })).status).toBe(204);
      expect(asBig((await api('GET', `/api/wallets/wallets/${id}`)).body.data.balances.main.assets.COIN)).toBe(amount);
      const hold = await api('POST', `/api/wallets/wallets/${id}/debit`, { body: { amount: { asset: 'COIN', amount }, pending: true } });
      expect(hold.status).toBe(201);
      const held = await api('GET', `/api/wallets/holds/${hold.body.data.id}`);
      expect(asBig(held.body.data.remaining)).toBe(amount);
      expect(asBig(held.body.data.originalAmount)).toBe(amount);
      expect((await api('POST', `/api/wallets/holds/${hold.body.data.id}/confirm`, { body: {} })).status).toBe(204);
      expect(asBig((await api('GET', `/api/wallets/wallets/${id}`)).body.data.balances.main.assets.COIN ?? 0)).toBe(0n);
    }
  });

  it('orchestration: a send with a literal amount and one with a variable amount move exactly that much', async () => {
    const ledger = await newLedger('exact-orch');
    for (const amount of POSITIVE) {
      const send = (to: string, value: unknown) => ({
        send: {
          source: { account: { id: 'world', ledger } },
          destination: { account: { id: to, ledger } },
          amount: { asset: 'COIN', amount: value },
        },
      });
      const workflowID = await createWorkflow([send(`literal:${amount}`, amount), send(`variable:${amount}`, '${amount}')]);
      const run = await runInstance(workflowID, { amount: amount.toString() }, true);
      expect(run.status).toBe(200);
      expect(run.body.data.error ?? '').toBe('');
      expect(await balance(ledger, `literal:${amount}`, 'COIN')).toBe(amount);
      expect(await balance(ledger, `variable:${amount}`, 'COIN')).toBe(amount);
    }
  });

  it('payments, simulated connector: provider files and initiations of every size are listed exactly, and fetching goes on', async () => {
    const created = '2024-06-01T00:00:00Z';
    const dir = simulatedDirectory({
      'accounts.json': [
        { reference: 'main', type: 'INTERNAL' },
        { reference: 'supplier', type: 'EXTERNAL' },
      ],
      'balances.json': [{ accountReference: 'main', asset: 'COIN', amount: 2n ** 300n }],
      'payments.json': AMOUNTS.map((amount) => ({
        reference: `file-${amount}`,
        type: 'PAY-IN',
        status: 'SUCCEEDED',
        amount,
        asset: 'COIN',
        createdAt: created,
        destinationAccountReference: 'main',
      })),
    });
    const connectorID = await installSimulated(dir, '1s');
    try {
      const listed = await pollUntil(
        async () => {
          const rows = await paymentsOf(connectorID);
          return rows.length >= AMOUNTS.length ? rows : undefined;
        },
        isDefined,
        { timeoutMs: 45_000, what: 'provider payments' },
      );
      for (const amount of AMOUNTS) expect(asBig(listed.find((p) => p.reference === `file-${amount}`).amount)).toBe(amount);
      const pool = await api('POST', '/api/payments/v3/pools', { body: { name: `exact-${suffix()}`, accountIDs: [accountID(connectorID, 'main')] } });
      expect(pool.status).toBe(201);
      const poolBalances = await pollUntil(
        async () => {
          const data = (await api('GET', `/api/payments/v3/pools/${pool.body.data}/balances`)).body.data;
          return data.length > 0 ? data : undefined;
        },
        isDefined,
        { timeoutMs: 30_000, what: 'pool balances' },
      );
      expect(asBig(poolBalances[0].amount)).toBe(2n ** 300n);

      for (const amount of POSITIVE) {
        const res = await api('POST', '/api/payments/v3/payment-initiations?noValidation=true', {
          body: {
            reference: `pi-${suffix()}`,
            connectorID,
            type: 'TRANSFER',
            amount,
            asset: 'COIN',
            sourceAccountID: accountID(connectorID, 'main'),
            destinationAccountID: accountID(connectorID, 'supplier'),
          },
        });
        expect(res.status).toBe(202);
        const pi = await settled(res.body.data.paymentInitiationID);
        expect(pi).toMatchObject({ status: 'PROCESSED' });
        expect(asBig(pi.amount)).toBe(amount);
        const related = (await api('GET', `/api/payments/payments/${pi.relatedPaymentIDs[0]}`)).body.data;
        expect(asBig(related.amount)).toBe(amount);
      }
      // The connector keeps fetching after all of them: a payment added now still shows up.
      const later = [
        ...AMOUNTS.map((amount) => ({
          reference: `file-${amount}`,
          type: 'PAY-IN',
          status: 'SUCCEEDED',
          amount,
          asset: 'COIN',
          createdAt: created,
          destinationAccountReference: 'main',
        })),
        {
          reference: 'after',
          type: 'PAY-IN',
          status: 'SUCCEEDED',
          amount: 7,
          asset: 'COIN',
          createdAt: created,
          destinationAccountReference: 'main',
        },
      ];
      writeJson(dir, 'payments.json', later);
      await pollUntil(async () => ((await paymentsOf(connectorID)).some((p) => p.reference === 'after') ? true : undefined), isDefined, {
        timeoutMs: 45_000,
        what: 'a later fetch cycle',
      });
    } finally {
      await api('DELETE', `/api/payments/v3/connectors/${connectorID}`);
    }
  }, 180_000); // a fetch, seven initiations and another fetch in a row: their liveness bounds add up past jest's 60 s

  it('payments, generic connector: provider answers and transfer requests carry every digit both ways', async () => {
    const transferBodies: string[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const send = (status: number, value: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(stringifyJson(value));
        const path = new URL(req.url as string, 'http://127.0.0.1').pathname;
        if (req.method === 'GET' && path === '/accounts')
          return send(200, { data: [{ reference: 'acc-1' }, { reference: 'ext-1', type: 'EXTERNAL' }] });
        if (req.method === 'GET' && path === '/balances')
          return send(200, { data: [{ accountReference: 'acc-1', asset: 'COIN', amount: 2n ** 256n }] });
        if (req.method === 'GET' && path === '/payments') {
          return send(200, {
            data: AMOUNTS.map((amount) => ({
              reference: `g-${amount}`,
              type: 'PAY-IN',
              status: 'SUCCEEDED',
              amount,
              asset: 'COIN',
              createdAt: '2024-06-01T00:00:00Z',
            })),
          });
        }
        if (req.method === 'POST' && path === '/transfers') {
          transferBodies.push(body);
          const input = parseJson(body) as { amount: bigint; asset: string };
          return send(200, {
            data: {
              reference: `t-${transferBodies.length}`,
              type: 'TRANSFER',
              status: 'SUCCEEDED',
              amount: input.amount,
              asset: input.asset,
              createdAt: new Date().toISOString(),
            },
          });
        }
        return send(404, { error: 'not found' });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const install = await api('POST', '/api/payments/v3/connectors/install/generic', {
      body: { name: `generic-${suffix()}`, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'k', pollingPeriod: '1s' },
    });
    expect(install.status).toBe(202);
    const connectorID = install.body.data;
    try {
      const listed = await pollUntil(
        async () => {
          const rows = await paymentsOf(connectorID);
          return rows.length >= AMOUNTS.length ? rows : undefined;
        },
        isDefined,
        { timeoutMs: 45_000, what: 'generic payments' },
      );
      for (const amount of AMOUNTS) expect(asBig(listed.find((p) => p.reference === `g-${amount}`).amount)).toBe(amount);
      for (const amount of [2n ** 64n + 1n, 2n ** 256n]) {
        const res = await api('POST', '/api/payments/v3/payment-initiations?noValidation=true', {
          body: {
            reference: `gt-${suffix()}`,
            connectorID,
            type: 'TRANSFER',
            amount,
            asset: 'COIN',
            sourceAccountID: accountID(connectorID, 'acc-1'),
            destinationAccountID: accountID(connectorID, 'ext-1'),
          },
        });
        const pi = await settled(res.body.data.paymentInitiationID);
        expect(pi.status).toBe('PROCESSED');
        expect(transferBodies.some((b) => b.includes(`"amount":${amount},`) || b.includes(`"amount":${amount}}`))).toBe(true);
        expect(asBig((await api('GET', `/api/payments/payments/${pi.relatedPaymentIDs[0]}`)).body.data.amount)).toBe(amount);
      }
    } finally {
      await api('DELETE', `/api/payments/v3/connectors/${connectorID}`);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 120_000); // a fetch and two initiations in a row: their liveness bounds add up past jest's 60 s
});
