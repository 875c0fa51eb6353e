import type { Db } from '../../../db/knex';
import { upsertPayment } from '../../../areas/payments/payments/payments-upsert';
import { freePort } from '../../../scripts/stack/ports';
import { runNodeProcess, type ManagedProcess } from '../../../scripts/stack/processes';
import { control } from '../../support/control';
import { api, apiUrl, getToken } from '../../support/http';
import { newLedger, postTransaction, posting } from '../../support/ledger';
import { seedConnector, testDb } from '../../support/payments';
import { credit, newWallet } from '../../support/wallets';
import { isTruthy, pollUntil } from '../../support/eventually';

/** The attacker's edit: valid JSON in the cursor's shape, with a keyset value of the wrong type for every list below. */
const EDITED = Buffer.from('{"f":{},"p":4,"k":["abc"],"d":"next"}').toString('base64url');

const expectRefused = (res: { status: number; body: any }) => {
  expect(res.status).toBe(400);
  expect(res.body.errorCode).toBe('VALIDATION');
  expect(res.body.errorMessage).toMatch(/^invalid cursor: .*only by the list that issued it/);
};

const ids = (res: { body: any }, field = 'id') => res.body.cursor.data.map((item: any) => item[field]);

/** Cursors are signed and bound to their list: an edited or foreign cursor is a 400, never a 500 from SQL. */
describe('list cursors', () => {
  let db: Db;
  let ledgerA: string;
  let ledgerB: string;
  let walletID: string;
  let paymentsList: string;

  beforeAll(async () => {
    db = testDb();
    ledgerA = await newLedger('cursor');
    ledgerB = await newLedger('cursor');
    for (const ledger of [ledgerA, ledgerA, ledgerB]) {
      expect((await postTransaction(ledger, { postings: [posting('world', 'users:1', 100)] })).status).toBe(200);
    }
    walletID = await newWallet();
    for (const amount of [100, 200, 300]) expect((await credit(walletID, amount)).status).toBe(204);
    const { connectorID } = await seedConnector(db, [{ reference: 'src' }]);
    for (const i of [1, 2, 3]) {
      await upsertPayment(db, connectorID, {
        reference: `cursor-${i}`,
        createdAt: new Date(Date.UTC(2024, 0, i)),
        type: 'PAY-IN',
        status: 'SUCCEEDED',
        scheme: 'visa',
        asset: 'EUR/2',
        amount: BigInt(i),
        initialAmount: BigInt(i),
        sourceAccountReference: 'src',
        metadata: {},
        raw: {},
      });
    }
    paymentsList = `/api/payments/payments?pageSize=1&query=${encodeURIComponent(JSON.stringify({ $match: { connectorID } }))}`;
  });
  afterAll(async () => db.destroy());

  const lists = () =>
    [
      ['ledgers', '/api/ledger/v2?pageSize=1', '/api/ledger/v2', 'name'],
      ['payments', () => paymentsList, '/api/payments/payments', 'id'],
      ['wallet transactions', () => `/api/wallets/transactions?walletID=${walletID}&pageSize=1`, '/api/wallets/transactions', 'id'],
    ] as const;

  it.each(lists())('answer an edited cursor with 400 on the %s list, and a genuine one still pages', async (_name, first, base, field) => {
    const page1 = await api('GET', typeof first === 'function' ? first() : first);
    expect(page1.status).toBe(200);
    expect(page1.body.cursor.next).not.toBe('');
    expectRefused(await api('GET', `${base}?cursor=${EDITED}`));

    const page2 = await api('GET', `${base}?cursor=${page1.body.cursor.next}`);
    expect(page2.status).toBe(200);
    expect(ids(page2, field)).toHaveLength(1);
    expect(ids(page2, field)).not.toEqual(ids(page1, field));
    const back = await api('GET', `${base}?cursor=${page2.body.cursor.previous}`);
    expect(back.status).toBe(200);
    expect(ids(back, field)).toEqual(ids(page1, field));
  });

  it('refuse a cursor replayed on another list', async () => {
    const ledgers = (await api('GET', '/api/ledger/v2?pageSize=1')).body.cursor.next;
    const wallet = (await api('GET', `/api/wallets/transactions?walletID=${walletID}&pageSize=1`)).body.cursor.next;
    expectRefused(await api('GET', `/api/payments/payments?cursor=${ledgers}`));
    expectRefused(await api('GET', `/api/ledger/v2?cursor=${wallet}`));
    expectRefused(await api('GET', `/api/ledger/v2/${ledgerA}/transactions?cursor=${ledgers}`));
  });

  it("refuse a cursor of one ledger's transactions on another ledger's", async () => {
    const page1 = await api('GET', `/api/ledger/v2/${ledgerA}/transactions?pageSize=1`);
    expect(page1.body.cursor.next).not.toBe('');
    expect((await api('GET', `/api/ledger/v2/${ledgerA}/transactions?cursor=${page1.body.cursor.next}`)).status).toBe(200);
    expectRefused(await api('GET', `/api/ledger/v2/${ledgerB}/transactions?cursor=${page1.body.cursor.next}`));
  });

  it("accept the first page's parameters again beside the cursor (as Formance's CLI sends them), and refuse one that differs", async () => {
    const first = `/api/ledger/v2/${ledgerA}/transactions?pageSize=1`;
    const page1 = await api('GET', first);
    const next = page1.body.cursor.next;
    const alone = await api('GET', `/api/ledger/v2/${ledgerA}/transactions?cursor=${next}`);
    const repeated = await api('GET', `/api/ledger/v2/${ledgerA}/transactions?cursor=${next}&pageSize=1&expand=`);
    expect(repeated.status).toBe(200);
    expect(repeated.body.cursor.data).toEqual(alone.body.cursor.data);
    const changed = await api('GET', `/api/ledger/v2/${ledgerA}/transactions?cursor=${next}&pageSize=2`);
    expect([changed.status, changed.body.errorCode]).toEqual([400, 'VALIDATION']);
    expect(changed.body.errorMessage).toMatch(/^query\.pageSize: differs from the value its cursor carries/);
    const added = await api('GET', `/api/ledger/v2/${ledgerA}/transactions?cursor=${next}&account=world`);
    expect([added.status, added.body.errorCode]).toEqual([400, 'VALIDATION']);
  });

  it('stay valid across an API restart and on another API process of the same deployment', async () => {
    const page1 = await api('GET', '/api/ledger/v2?pageSize=1');
    const expected = ids(await api('GET', `/api/ledger/v2?cursor=${page1.body.cursor.next}`), 'name');
    await control('api', 'restart');
    expect(ids(await api('GET', `/api/ledger/v2?cursor=${page1.body.cursor.next}`), 'name')).toEqual(expected);

    const replica = await startReplica();
    try {
      const res = await fetch(`${replica.url}/api/ledger/v2?cursor=${page1.body.cursor.next}`, {
        headers: { Authorization: `Bearer ${await getToken()}` },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).cursor.data.map((l: any) => l.name)).toEqual(expected);
    } finally {
      await replica.process.stop();
    }
  });
});

/** A second API process of the run's deployment; it has the run's public URL, so the run's tokens are valid there too. */
async function startReplica(): Promise<{ url: string; process: ManagedProcess }> {
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: apiUrl(),
    LOG_LEVEL: 'warn',
    DATA_DIR: process.env.TEST_PLATFORM_DATA_DIR,
    DATABASE_URL: process.env.TEST_DATABASE_URL,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
  };
  const child = runNodeProcess({ name: 'replica', entry: 'api/server.ts', env, output: () => undefined, restartOnCrash: false });
  const url = `http://127.0.0.1:${port}`;
  const healthy = () =>
    fetch(`${url}/_healthcheck`).then(
      (r) => r.ok,
      () => false,
    );
  if (await pollUntil(healthy, isTruthy, { timeoutMs: 60_000, intervalMs: 100, what: 'the replica' }).catch(() => false))
    return { url, process: child };
  await child.stop();
  throw new Error('the replica API did not become healthy');
}
