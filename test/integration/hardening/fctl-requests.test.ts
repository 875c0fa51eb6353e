import { request as httpRequest } from 'node:http';
import { parseJson, stringifyJson } from '../../../lib/json';
import { api, apiUrl, getToken, type ApiResponse } from '../../support/http';
import { newLedger } from '../../support/ledger';
import { pollUntil } from '../../support/eventually';
import { createWorkflow, runInstance } from '../../support/orchestration';
import { installSimulated, simulatedDirectory } from '../../support/payments';
import { newWallet, unique } from '../../support/wallets';

/**
 * The HTTP requests Formance's CLI (fctl, on formance-sdk-go v3/v4) sends for its ledger, payments, wallets, orchestration
 * and webhooks list/show/send commands when run without optional flags, replayed as sent: fctl passes every flag it
 * has to the SDK, which sends it even when empty (`cursor=`, `workflowID=`, `"balance": ""`, `"balances": [""]`,
 * `"reference": ""`, an empty `Idempotency-Key` header, `groupBy=0`, `running=false`) and some GET lists carry their
 * filter as a JSON body (`{"$and": []}` when no filter flag is given). Each must succeed with the right results.
 * The command each request comes from is named in its test (fctl's cmd/<area>/... source).
 */

/** A GET with a JSON body, as the Go SDK sends Formance's v2 list filters (fetch cannot send a body on GET). */
async function getWithBody(path: string, body: unknown): Promise<ApiResponse> {
  const token = await getToken();
  const payload = Buffer.from(stringifyJson(body));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${apiUrl()}${path}`,
      { method: 'GET', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': payload.length } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: new Headers(), body: text ? parseJson(text) : text, text });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** A time as Go's RFC 3339 with nanoseconds, as the SDK writes a time.Time query parameter. */
const goTime = (date: Date): string => date.toISOString().replace(/Z$/, '000000Z');

const ids = <T extends { id: string | number }>(items: T[]) => items.map((item) => item.id);

describe('fctl requests, replayed', () => {
  describe('ledger', () => {
    let ledger: string;
    beforeAll(async () => {
      ledger = await newLedger('fctl');
    });

    it('`ledger send` twice without --reference (v1 create, "reference": ""): two transactions', async () => {
      for (const amount of [100, 50]) {
        const sent = await api('POST', `/api/ledger/${ledger}/transactions`, {
          body: { metadata: {}, postings: [{ amount, asset: 'USD/2', destination: 'users:1', source: 'world' }], reference: '' },
        });
        expect(sent.status).toBe(200);
        expect(sent.body.data[0]).toMatchObject({ postings: [{ amount, destination: 'users:1' }] });
        expect(sent.body.data[0].reference ?? '').toBe('');
      }
      const listed = await api('GET', `/api/ledger/v2/${ledger}/transactions`);
      expect(listed.body.cursor.data.map((tx: { id: number }) => tx.id)).toEqual([1, 0]);
    });

    it('`ledger list`, `ledger transactions show`, `ledger accounts show`', async () => {
      const ledgers = await api('GET', '/api/ledger/v2?pageSize=1000');
      expect(ledgers.status).toBe(200);
      expect(ledgers.body.cursor.data.map((l: { name: string }) => l.name)).toContain(ledger);
      const tx = await api('GET', `/api/ledger/v2/${ledger}/transactions/0`);
      expect(tx.body.data).toMatchObject({ id: 0, postings: [{ amount: 100, destination: 'users:1' }] });
      const account = await api('GET', `/api/ledger/v2/${ledger}/accounts/users:1`);
      expect(account.body.data).toMatchObject({ address: 'users:1', volumes: { 'USD/2': { input: 150, output: 0, balance: 150 } } });
    });

    it("`ledger transactions list` (v1: pageSize=5, every filter empty, Go's zero time for startTime and endTime)", async () => {
      const zero = '0001-01-01T00:00:00Z';
      const query = `pageSize=5&reference=&account=&destination=&source=&after=&startTime=${zero}&endTime=${zero}`;
      const listed = await api('GET', `/api/ledger/${ledger}/transactions?${query}`);
      expect(listed.status).toBe(200);
      expect(listed.body.cursor.data.map((tx: { txid: number }) => tx.txid)).toEqual([1, 0]);
    });

    it('`ledger accounts list` (GET with the body {"$and": []})', async () => {
      const listed = await getWithBody(`/api/ledger/v2/${ledger}/accounts`, { $and: [] });
      expect(listed.status).toBe(200);
      expect(listed.body.cursor.data.map((a: { address: string }) => a.address).sort()).toEqual(['users:1', 'world']);
    });

    it('`ledger accounts list --address users:` (its filter in a GET body) filters, and agrees with the query parameter', async () => {
      const filter = { $and: [{ $match: { address: 'users:' } }] };
      const listed = await getWithBody(`/api/ledger/v2/${ledger}/accounts`, filter);
      expect(listed.status).toBe(200);
      expect(listed.body.cursor.data.map((a: { address: string }) => a.address)).toEqual(['users:1']);
      const both = await getWithBody(`/api/ledger/v2/${ledger}/accounts?query=${encodeURIComponent(stringifyJson(filter))}`, filter);
      expect(both.body.cursor.data.map((a: { address: string }) => a.address)).toEqual(['users:1']);
      const differing = await getWithBody(
        `/api/ledger/v2/${ledger}/accounts?query=${encodeURIComponent(stringifyJson({ $match: { address: 'world' } }))}`,
        filter,
      );
      expect([differing.status, differing.body.errorCode]).toEqual([400, 'VALIDATION']);
      expect((await getWithBody(`/api/ledger/v2/${ledger}/transactions`, { $match: { account: 'no:such' } })).body.cursor.data).toEqual([]);
    });

    it('`ledger volumes list` (cursor=, pageSize=10, insertionDate=false, groupBy=0, a week up to now, body {"$and": []})', async () => {
      const pit = new Date();
      const oot = new Date(pit.getTime() - 7 * 24 * 3600 * 1000);
      const query = `cursor=&endTime=${encodeURIComponent(goTime(pit))}&groupBy=0&insertionDate=false&pageSize=10&startTime=${encodeURIComponent(goTime(oot))}`;
      const listed = await getWithBody(`/api/ledger/v2/${ledger}/volumes?${query}`, { $and: [] });
      expect(listed.status).toBe(200);
      expect(listed.body.cursor).toMatchObject({ pageSize: 10, hasMore: false });
      expect(listed.body.cursor.data).toEqual([
        { account: 'users:1', asset: 'USD/2', input: 150, output: 0, balance: 150 },
        { account: 'world', asset: 'USD/2', input: 0, output: 150, balance: -150 },
      ]);
    });
  });

  describe('payments', () => {
    let connectorID: string;
    let accountID: string;
    let paymentID: string;
    beforeAll(async () => {
      // An account and a payment recorded by hand on a simulated connector, as docs/quickstart.md does.
      connectorID = await installSimulated(simulatedDirectory(), '1m');
      const account = await api('POST', '/api/payments/v3/accounts', {
        body: {
          connectorID,
          reference: `fctl-${unique()}`,
          accountName: 'fctl treasury',
          type: 'INTERNAL',
          createdAt: '2024-05-01T08:00:00Z',
          defaultAsset: 'EUR/2',
        },
      });
      expect([account.status, account.status === 201 ? '' : account.text]).toEqual([201, '']);
      accountID = account.body.data.id;
      const payment = await api('POST', '/api/payments/v3/payments', {
        body: {
          connectorID,
          reference: `fctl-${unique()}`,
          type: 'PAY-IN',
          scheme: 'sepa credit',
          asset: 'EUR/2',
          amount: 1500,
          initialAmount: 1500,
          createdAt: '2024-05-02T09:30:00Z',
          destinationAccountID: accountID,
          adjustments: [{ reference: `fctl-${unique()}`, createdAt: '2024-05-02T09:31:00Z', status: 'SUCCEEDED' }],
        },
      });
      expect([payment.status, payment.status === 201 ? '' : payment.text]).toEqual([201, '']);
      paymentID = payment.body.data.id;
    });
    afterAll(async () => {
      if (connectorID) expect((await api('DELETE', `/api/payments/v3/connectors/${connectorID}`)).status).toBe(202);
    });

    // cmd/payments: list commands send cursor and pageSize only when given; connectors list (v3) sends pageSize=10.
    it('`payments payments list`, `payments accounts list`, `payments connectors list`', async () => {
      for (const path of ['/api/payments/payments', '/api/payments/accounts', '/api/payments/v3/connectors?pageSize=10']) {
        const listed = await api('GET', path);
        expect({ path, status: listed.status }).toEqual({ path, status: 200 });
        expect(Array.isArray(listed.body.cursor.data)).toBe(true);
      }
      const connectors = await api('GET', '/api/payments/v3/connectors?pageSize=1000');
      expect(ids(connectors.body.cursor.data)).toContain(connectorID);
    });

    // cmd/payments/payments/show.go and accounts/show.go: the v1 reads (`get <id>`).
    it('`payments payments get`, `payments accounts get`', async () => {
      const payment = await api('GET', `/api/payments/payments/${paymentID}`);
      expect(payment.status).toBe(200);
      expect(payment.body.data).toMatchObject({ id: paymentID, connectorID, asset: 'EUR/2', amount: 1500, type: 'PAY-IN', status: 'SUCCEEDED' });
      expect(payment.body.data.destinationAccountID).toBe(accountID);
      const account = await api('GET', `/api/payments/accounts/${accountID}`);
      expect(account.status).toBe(200);
      expect(account.body.data).toMatchObject({ id: accountID, connectorID, defaultAsset: 'EUR/2', type: 'INTERNAL' });
    });
  });

  describe('wallets', () => {
    let wallet: string;
    let holdId: string;
    beforeAll(async () => {
      wallet = await newWallet(`fctl-${unique()}`);
    });

    it('`wallets credit 100 USD/2 --id` (empty Idempotency-Key, "balance": "", no sources)', async () => {
      const credited = await api('POST', `/api/wallets/wallets/${wallet}/credit`, {
        headers: { 'Idempotency-Key': '' },
        body: { amount: { asset: 'USD/2', amount: 100 }, metadata: {}, sources: [], balance: '' },
      });
      expect(credited.status).toBe(204);
    });

    it('`wallets debit 30 USD/2 --id` and with --pending ("balances": [""], "description": "")', async () => {
      const body = (amount: number, pending: boolean) => ({
        amount: { asset: 'USD/2', amount },
        pending,
        metadata: {},
        description: '',
        balances: [''],
      });
      expect((await api('POST', `/api/wallets/wallets/${wallet}/debit`, { body: body(30, false) })).status).toBe(204);
      const pending = await api('POST', `/api/wallets/wallets/${wallet}/debit`, { body: body(20, true) });
      expect(pending.status).toBe(201);
      expect(pending.body.data).toMatchObject({ walletID: wallet, asset: 'USD/2', description: '' });
      holdId = pending.body.data.id;
    });

    it('`wallets show`, `wallets list`, `wallets balances list`', async () => {
      const shown = await api('GET', `/api/wallets/wallets/${wallet}`);
      expect(shown.body.data.balances).toEqual({ main: { assets: { 'USD/2': 50 } } });
      const listed = await api('GET', '/api/wallets/wallets?pageSize=1000');
      expect(ids(listed.body.cursor.data)).toContain(wallet);
      const balances = await api('GET', `/api/wallets/wallets/${wallet}/balances`);
      expect(balances.body.cursor.data.map((b: { name: string }) => b.name)).toEqual(['main']);
    });

    it('`wallets holds list` without and with a wallet (walletID=), `wallets holds show`', async () => {
      const all = await api('GET', '/api/wallets/holds?walletID=');
      expect(all.status).toBe(200);
      // `walletID=` is no filter: the same page as without it (the suite's other holds may push this one past it).
      expect(ids(all.body.cursor.data)).toEqual(ids((await api('GET', '/api/wallets/holds')).body.cursor.data));
      expect(ids((await api('GET', '/api/wallets/holds?walletID=&pageSize=1000')).body.cursor.data)).toContain(holdId);
      const mine = await api('GET', `/api/wallets/holds?walletID=${wallet}`);
      expect(ids(mine.body.cursor.data)).toEqual([holdId]);
      const shown = await api('GET', `/api/wallets/holds/${holdId}`);
      expect(shown.body.data).toMatchObject({ id: holdId, originalAmount: 20, remaining: 20, closed: false });
    });

    it('`wallets transactions list` without and with a wallet (walletID=)', async () => {
      const all = await api('GET', '/api/wallets/transactions?walletID=');
      expect(all.status).toBe(200);
      const mine = await api('GET', `/api/wallets/transactions?walletID=${wallet}`);
      expect(mine.body.cursor.data).toHaveLength(3);
      expect(ids(all.body.cursor.data)).toEqual(expect.arrayContaining(ids(mine.body.cursor.data)));
    });
  });

  describe('orchestration', () => {
    let workflowID: string;
    let instanceID: string;
    let triggerID: string;
    beforeAll(async () => {
      workflowID = await createWorkflow([{ noop: {} }]);
      const run = await runInstance(workflowID, {}, true);
      expect(run.body.data.terminated).toBe(true);
      instanceID = run.body.data.id;
      // A filter that matches no payment: a trigger on every SAVED_PAYMENT would start a workflow for each payment the
      // rest of the suite saves (thousands), and is deleted once these tests are done.
      const trigger = await api('POST', '/api/orchestration/triggers', {
        body: { event: 'SAVED_PAYMENT', workflowID, name: `fctl-${unique()}`, filter: 'event.reference == "fctl-never"' },
      });
      expect(trigger.status).toBe(201);
      triggerID = trigger.body.data.id;
    });
    afterAll(async () => {
      if (triggerID) expect((await api('DELETE', `/api/orchestration/triggers/${triggerID}`)).status).toBe(204);
    });

    it('`orchestration instances list` (running=false&workflowID=) and `instances show`', async () => {
      const listed = await api('GET', '/api/orchestration/instances?running=false&workflowID=');
      expect(listed.status).toBe(200);
      expect(ids(listed.body.data)).toContain(instanceID);
      const shown = await api('GET', `/api/orchestration/instances/${instanceID}`);
      expect(shown.body.data).toMatchObject({ id: instanceID, workflowID, terminated: true });
    });

    it('`orchestration workflows list` and `workflows show`', async () => {
      const listed = await api('GET', '/api/orchestration/workflows');
      expect(ids(listed.body.data)).toContain(workflowID);
      expect((await api('GET', `/api/orchestration/workflows/${workflowID}`)).body.data.id).toBe(workflowID);
    });

    it('`orchestration triggers list` (name=)', async () => {
      const listed = await api('GET', '/api/orchestration/triggers?name=');
      expect(listed.status).toBe(200);
      expect(ids(listed.body.data)).toContain(triggerID);
    });

    it('`orchestration triggers show` and `triggers occurrences list`', async () => {
      const shown = await api('GET', `/api/orchestration/triggers/${triggerID}`);
      expect(shown.body.data).toMatchObject({ id: triggerID, workflowID, event: 'SAVED_PAYMENT' });
      const occurrences = await api('GET', `/api/orchestration/triggers/${triggerID}/occurrences`);
      expect(occurrences.status).toBe(200);
      expect(occurrences.body.data).toEqual([]);
    });

    // cmd/orchestration/workflows/run.go (wait=false, the variables as the body: {} without --variable),
    // instances/send_event.go (v1, {"name": <event>}) and instances/describe.go (v2 history, then each send stage's).
    it('`orchestration workflows run`, `instances send-event` and `instances describe`', async () => {
      const ledger = await newLedger('fctl-orch');
      const send = {
        source: { account: { id: 'world', ledger } },
        destination: { account: { id: 'users:1', ledger } },
        amount: { asset: 'USD/2', amount: 7 },
      };
      const waiting = await createWorkflow([{ wait_event: { event: 'go' } }, { send }]);
      const run = await api('POST', `/api/orchestration/workflows/${waiting}/instances?wait=false`, { body: {} });
      expect(run.status).toBe(200);
      const id = run.body.data.id;
      expect((await api('POST', `/api/orchestration/instances/${id}/events`, { body: { name: 'go' } })).status).toBe(204);
      const done = await pollUntil(
        async () => (await api('GET', `/api/orchestration/instances/${id}`)).body.data,
        (instance) => instance?.terminated === true,
        { what: 'the instance to end' },
      );
      expect(done.error ?? '').toBe('');
      // The histories are read from Temporal's, which may record the end a moment after the read model shows it.
      const history = await pollUntil(
        () => api('GET', `/api/orchestration/v2/instances/${id}/history`),
        (res) => res.status !== 200 || (res.body.data.length === 2 && res.body.data.every((stage: { terminated: boolean }) => stage.terminated)),
        { what: 'the history to show both stages ended' },
      );
      expect(history.status).toBe(200);
      expect(history.body.data.map((stage: { name: string; terminated: boolean }) => [stage.name, stage.terminated])).toEqual([
        ['RunWaitEvent', true],
        ['RunSend', true],
      ]);
      const stage = await pollUntil(
        () => api('GET', `/api/orchestration/v2/instances/${id}/stages/1/history`),
        (res) => res.status !== 200 || (res.body.data.length > 0 && res.body.data.every((step: { terminated: boolean }) => step.terminated)),
        { what: 'the send stage history to show its step ended' },
      );
      expect(stage.status).toBe(200);
      expect(stage.body.data).toEqual([
        expect.objectContaining({
          name: 'CreateTransaction',
          terminated: true,
          output: { CreateTransaction: { data: [expect.objectContaining({ postings: [expect.objectContaining({ amount: 7 })] })] } },
        }),
      ]);
    });
  });

  describe('webhooks', () => {
    let configID: string;
    afterAll(async () => {
      if (configID) await api('DELETE', `/api/webhooks/configs/${configID}`);
    });

    it('`webhooks list` (no parameters)', async () => {
      // An event type nothing emits: the config is never delivered to.
      const created = await api('POST', '/api/webhooks/configs', {
        body: { endpoint: `https://hooks.example.com/${unique()}`, eventTypes: ['fctl.replay'] },
      });
      expect(created.status).toBe(200);
      configID = created.body.data.id;
      const listed = await api('GET', '/api/webhooks/configs');
      expect(listed.status).toBe(200);
      expect(ids(listed.body.cursor.data)).toContain(configID);
    });
  });
});
