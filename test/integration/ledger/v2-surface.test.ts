import { randomBytes } from 'node:crypto';
import { stringifyJson } from '../../../lib/json';
import { api } from '../../support/http';
import { newLedger, posting, postTransaction } from '../../support/ledger';

/** What the SDK's contract tests do not reach: schema checks in every write, features, buckets, query filters. */
const chart = {
  world: {},
  bank: {},
  users: { $id: { '.pattern': '^[0-9]+$', '.metadata': { tier: { default: 'basic' }, region: { default: 'eu' } } } },
};
const deposit = 'vars { account $user }\nsend [USD/2 100] (\n  source = @world\n  destination = $user\n)';
const toShop = 'send [USD/2 1] (\n  source = @world\n  destination = @shop\n)';

async function schemaLedger(): Promise<string> {
  const ledger = await newLedger('schema');
  const res = await api('POST', `/api/ledger/v2/${ledger}/schemas/v1`, {
    body: { chart, transactions: { deposit: { script: deposit }, toShop: { script: toShop } } },
  });
  expect(res.status).toBe(204);
  return ledger;
}
const logTypes = async (ledger: string) =>
  (await api('GET', `/api/ledger/v2/${ledger}/logs?pageSize=100`)).body.cursor.data.map((l: { type: string }) => l.type).reverse();

describe('schemas', () => {
  test('a script whose postings leave the chart is refused after it ran, writing nothing', async () => {
    const ledger = await schemaLedger();
    const res = await postTransaction(ledger, { script: { template: 'toShop' } }, {}, '?schemaVersion=v1');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      errorCode: 'VALIDATION',
      errorMessage: expect.stringContaining(
        'script postings[0].destination: account "shop" is not allowed by schema "v1": the root has no segment "shop"',
      ),
    });
    const plain = await postTransaction(ledger, { script: { plain: toShop } }, {}, '?schemaVersion=v1');
    expect(plain.status).toBe(400);
    expect((await api('GET', `/api/ledger/v2/${ledger}/stats`)).body.data.transactions).toBe(0);
    expect(await logTypes(ledger)).toEqual(['INSERTED_SCHEMA']);
    // Without a version nothing is checked (Formance would require one once a schema exists: docs/ledger.md).
    expect((await postTransaction(ledger, { script: { plain: toShop } })).status).toBe(200);
  });

  test('templates are named with a version, exist, and stand instead of a text', async () => {
    const ledger = await schemaLedger();
    const noVersion = await postTransaction(ledger, { script: { template: 'deposit', vars: { user: 'users:1' } } });
    expect(noVersion.body).toMatchObject({ errorCode: 'VALIDATION', errorMessage: expect.stringContaining('send schemaVersion too') });
    const unknown = await postTransaction(ledger, { script: { template: 'nope' } }, {}, '?schemaVersion=v1');
    expect(unknown.body).toMatchObject({
      errorCode: 'VALIDATION',
      errorMessage: expect.stringContaining('no transaction template "nope" (templates: deposit, toShop)'),
    });
    const both = await postTransaction(ledger, { script: { template: 'deposit', plain: deposit } }, {}, '?schemaVersion=v1');
    expect(both.body).toMatchObject({ errorCode: 'VALIDATION', errorMessage: expect.stringContaining('either `plain` or `template`') });
  });

  test("default metadata fills only missing keys, and the caller's accountMetadata wins; each is a SET_METADATA log", async () => {
    const ledger = await schemaLedger();
    await api('POST', `/api/ledger/v2/${ledger}/accounts/users:1/metadata?schemaVersion=v1`, { body: { tier: 'gold' } });
    const res = await postTransaction(
      ledger,
      { postings: [posting('world', 'users:1', 5), posting('world', 'users:2', 5)], accountMetadata: { 'users:2': { region: 'us' } } },
      {},
      '?schemaVersion=v1',
    );
    expect(res.status).toBe(200);
    expect((await api('GET', `/api/ledger/v2/${ledger}/accounts/users:1`)).body.data.metadata).toEqual({ tier: 'gold', region: 'eu' });
    expect((await api('GET', `/api/ledger/v2/${ledger}/accounts/users:2`)).body.data.metadata).toEqual({ tier: 'basic', region: 'us' });
    expect(await logTypes(ledger)).toEqual(['INSERTED_SCHEMA', 'SET_METADATA', 'NEW_TRANSACTION', 'SET_METADATA', 'SET_METADATA']);
  });

  test('metadata writes, reverts and bulk elements naming a version are checked; dry runs write nothing', async () => {
    const ledger = await schemaLedger();
    const outside = await api('POST', `/api/ledger/v2/${ledger}/accounts/shop/metadata?schemaVersion=v1`, { body: { a: '1' } });
    expect(outside.body).toMatchObject({ errorCode: 'VALIDATION', errorMessage: expect.stringContaining('account "shop" is not allowed') });
    expect((await api('POST', `/api/ledger/v2/${ledger}/accounts/users:1/metadata?schemaVersion=v9`, { body: { a: '1' } })).status).toBe(404);
    expect((await api('POST', `/api/ledger/v2/${ledger}/accounts/users:1/metadata?dryRun=true`, { body: { a: '1' } })).status).toBe(204);
    expect((await api('GET', `/api/ledger/v2/${ledger}/accounts/users:1`)).body.data.metadata).toEqual({});
    // A transaction outside the chart (no version), then its revert naming the version is refused.
    expect((await postTransaction(ledger, { postings: [posting('world', 'shop', 3)] })).status).toBe(200);
    const revert = await api('POST', `/api/ledger/v2/${ledger}/transactions/0/revert?schemaVersion=v1`);
    expect(revert.body).toMatchObject({ errorCode: 'VALIDATION', errorMessage: expect.stringContaining('transaction 0.postings[0].destination') });
    const dry = await api('POST', `/api/ledger/v2/${ledger}/transactions/0/revert?dryRun=true`);
    expect(dry.status).toBe(201);
    expect((await api('GET', `/api/ledger/v2/${ledger}/transactions/0`)).body.data.reverted).toBe(false);
    const bulk = await api('POST', `/api/ledger/v2/${ledger}/_bulk?schemaVersion=v1&continueOnFailure=true`, {
      body: [
        { action: 'CREATE_TRANSACTION', data: { postings: [posting('world', 'bank', 1)] } },
        { action: 'CREATE_TRANSACTION', data: { postings: [posting('world', 'shop', 1)] } },
        { action: 'DELETE_METADATA', data: { targetType: 'ACCOUNT', targetId: 'bank', key: 'absent' } },
      ],
    });
    expect(bulk.status).toBe(400);
    expect(bulk.body.data.map((r: { responseType: string; logID: number }) => [r.responseType, r.logID])).toEqual([
      ['CREATE_TRANSACTION', 2],
      ['ERROR', -1],
      ['DELETE_METADATA', -1],
    ]);
  });

  test('an insert checks the chart and compiles the templates first', async () => {
    const ledger = await newLedger('schemabad');
    const badChart = await api('POST', `/api/ledger/v2/${ledger}/schemas/v1`, { body: { chart: { users: { $a: {}, $b: {} } } } });
    expect(badChart.body).toMatchObject({ errorCode: 'VALIDATION', errorMessage: expect.stringContaining('chart.users.$b') });
    const badScript = await api('POST', `/api/ledger/v2/${ledger}/schemas/v1`, { body: { chart, transactions: { t: { script: 'send [' } } } });
    expect(badScript.body).toMatchObject({ errorCode: 'COMPILATION_FAILED', errorMessage: expect.stringContaining('transactions.t.script') });
    expect((await api('POST', `/api/ledger/v2/${ledger}/schemas/v1`, { body: { transactions: {} } })).status).toBe(400);
    expect((await api('GET', `/api/ledger/v2/${ledger}/schemas`)).body.cursor.data).toEqual([]);
    expect(await logTypes(ledger)).toEqual([]);
  });
});

describe('buckets', () => {
  test('restoring or deleting a bucket no ledger is in is 404; deleting twice keeps the first date', async () => {
    expect((await api('POST', `/api/ledger/v2/_/buckets/none-${randomBytes(4).toString('hex')}/restore`)).status).toBe(404);
    const bucket = `b-${randomBytes(4).toString('hex')}`;
    const ledger = `inb-${randomBytes(4).toString('hex')}`;
    expect((await api('POST', `/api/ledger/v2/${ledger}`, { body: { bucket } })).status).toBe(204);
    expect((await api('DELETE', `/api/ledger/v2/_/buckets/${bucket}`)).status).toBe(204);
    const first = (await api('GET', `/api/ledger/v2/${ledger}`)).body.data.deletedAt;
    expect((await api('DELETE', `/api/ledger/v2/_/buckets/${bucket}`)).status).toBe(204);
    expect((await api('GET', `/api/ledger/v2/${ledger}`)).body.data.deletedAt).toBe(first);
    expect((await api('POST', `/api/ledger/v2/${ledger}/schemas/v1`, { body: { chart } })).status).toBe(400);
    expect((await api('PUT', `/api/ledger/v2/${ledger}/metadata`, { body: { a: '1' } })).status).toBe(400);
  });

  test("the platform's own ledgers live in _platform, which cannot be deleted nor used by clients", async () => {
    const wallet = await api('POST', '/api/wallets/wallets', { body: { name: `b-${randomBytes(3).toString('hex')}` } });
    expect(wallet.status).toBe(201);
    expect((await api('GET', '/api/ledger/v2/wallets')).body.data.bucket).toBe('_platform');
    const refused = await api('DELETE', '/api/ledger/v2/_/buckets/_platform');
    expect(refused.status).toBe(400);
    expect(refused.body.errorMessage).toMatch(/platform's own ledgers/);
    expect((await api('POST', '/api/ledger/v2/_/buckets/_platform/restore')).status).toBe(400);
    expect((await api('POST', `/api/ledger/v2/mine-${randomBytes(3).toString('hex')}`, { body: { bucket: '_platform' } })).status).toBe(400);
    const credit = await api('POST', `/api/wallets/wallets/${wallet.body.data.id}/credit`, { body: { amount: { asset: 'USD/2', amount: 5 } } });
    expect(credit.status).toBe(204);
  });
});

describe('query filters', () => {
  test("transactions, logs, volumes and counts take Formance's JSON filter", async () => {
    const ledger = await newLedger('query');
    await postTransaction(ledger, { postings: [posting('world', 'users:1', 10)], metadata: { kind: 'a' } });
    await postTransaction(ledger, { postings: [posting('users:1', 'shop:1', 4)] });
    await api('POST', `/api/ledger/v2/${ledger}/transactions/1/revert`);
    const q = (query: unknown) => `query=${encodeURIComponent(stringifyJson(query))}`;
    const ids = async (query: unknown) =>
      (await api('GET', `/api/ledger/v2/${ledger}/transactions?${q(query)}`)).body.cursor.data.map((t: { id: number }) => t.id);
    expect(await ids({ $match: { destination: 'shop:' } })).toEqual([1]);
    expect(await ids({ $or: [{ $match: { source: 'world' } }, { $match: { reverted: true } }] })).toEqual([1, 0]);
    expect(await ids({ $exists: { metadata: 'kind' } })).toEqual([0]);
    expect(await ids({ $not: { $match: { account: 'users:1' } } })).toEqual([]);
    expect(await ids({ $gte: { id: 2 } })).toEqual([2]);
    // Beyond a bigint: compared as numeric, so just no match (not a database range error).
    expect(await ids({ $gte: { id: '100000000000000000000000000' } })).toEqual([]);
    const count = await api('HEAD', `/api/ledger/v2/${ledger}/transactions?${q({ $match: { account: 'users:...' } })}`);
    expect(count.headers.get('count')).toBe('3');
    const logs = (await api('GET', `/api/ledger/v2/${ledger}/logs?${q({ $match: { type: 'REVERTED_TRANSACTION' } })}`)).body.cursor.data;
    expect(logs.map((l: { id: number }) => l.id)).toEqual([2]);
    const volumes = (await api('GET', `/api/ledger/v2/${ledger}/volumes?${q({ $lt: { balance: 0 } })}`)).body.cursor.data;
    expect(volumes.map((v: { account: string }) => v.account)).toEqual(['world']);
    const accounts = (await api('GET', `/api/ledger/v2/${ledger}/accounts?${q({ $gt: { balance: 5 } })}`)).body.cursor.data;
    expect(accounts.map((a: { address: string }) => a.address)).toEqual(['users:1']);
    const bad = await api('GET', `/api/ledger/v2/${ledger}/transactions?${q({ $match: { balance: 1 } })}`);
    expect(bad.body).toMatchObject({ errorCode: 'VALIDATION', errorMessage: expect.stringContaining('unknown field "balance"') });
  });
});
