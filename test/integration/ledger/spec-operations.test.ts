import { createDb, type Db } from '../../../db/knex';
import { api } from '../../support/http';
import { newLedger, posting, postTransaction } from '../../support/ledger';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('ledger spec operations 10 and 11, lists and events', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 2 });
  });
  afterAll(() => db.destroy());

  it('op 10 lists ledgers in a cursor envelope of {name, addedAt, bucket, metadata}, pageSize 1..1000', async () => {
    const names = [await newLedger('op10'), await newLedger('op10'), await newLedger('op10')];
    const seen: any[] = [];
    let res = await api('GET', '/api/ledger/v2?pageSize=2');
    for (;;) {
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['cursor']);
      expect(Object.keys(res.body.cursor).sort()).toEqual(['data', 'hasMore', 'next', 'pageSize', 'previous']);
      seen.push(...res.body.cursor.data);
      if (!res.body.cursor.hasMore) break;
      res = await api('GET', `/api/ledger/v2?cursor=${res.body.cursor.next}`);
    }
    expect(res.body.cursor.next).toBe('');
    const mine = seen.filter((l) => names.includes(l.name));
    expect(mine.map((l) => l.name)).toEqual(names);
    for (const ledger of mine) {
      expect(Object.keys(ledger).sort()).toEqual(['addedAt', 'bucket', 'metadata', 'name']);
      expect(ledger.addedAt).toMatch(ISO);
      expect(ledger).toEqual({ name: expect.any(String), addedAt: expect.any(String), bucket: '_default', metadata: {} });
    }
    for (const bad of ['0', '1001', 'x']) expect((await api('GET', `/api/ledger/v2?pageSize=${bad}`)).status).toBe(400);
    expect((await api('GET', '/api/ledger/v2?pageSize=1000')).status).toBe(200);
    // Beside a cursor, a parameter must repeat what the cursor carries (fctl sends them all again).
    expect((await api('GET', `/api/ledger/v2?cursor=${res.body.cursor.previous}&pageSize=2`)).status).toBe(200);
    expect((await api('GET', `/api/ledger/v2?cursor=${res.body.cursor.previous}&pageSize=3`)).status).toBe(400);
  });

  it('creates, reads and annotates a ledger; a duplicate or reserved name is 400', async () => {
    const name = await newLedger('adm');
    const dup = await api('POST', `/api/ledger/v2/${name}`);
    expect(dup.status).toBe(400);
    expect(dup.body.errorCode).toBe('LEDGER_ALREADY_EXISTS');
    expect((await api('POST', '/api/ledger/v2/bad.name')).status).toBe(400);
    expect((await api('POST', '/api/ledger/v2/v2')).status).toBe(400);
    expect((await api('PUT', `/api/ledger/v2/${name}/metadata`, { body: { team: 'core' } })).status).toBe(204);
    const read = await api('GET', `/api/ledger/v2/${name}`);
    // Read on its own, a ledger is Formance's V2Ledger: the spec's fields, its id and its effective features (docs/ledger.md).
    expect(read.body.data).toEqual({
      id: expect.any(Number),
      name,
      addedAt: expect.stringMatching(ISO),
      bucket: '_default',
      metadata: { team: 'core' },
      features: expect.objectContaining({ HASH_LOGS: 'ASYNC' }),
    });
    expect((await api('GET', '/api/ledger/v2/nope-nope-nope')).body.errorCode).toBe('LEDGER_NOT_FOUND');
  });

  it('op 11 returns txid, postings, reference, metadata, timestamp and the touched volumes, field by field', async () => {
    const ledger = await newLedger('op11');
    await postTransaction(ledger, { postings: [posting('world', 'users:1', 100)] });
    const created = await api('POST', `/api/ledger/${ledger}/transactions`, {
      body: {
        postings: [posting('users:1', 'users:2', 40), posting('world', 'users:2', 5, 'EUR')],
        reference: 'ref-11',
        metadata: { k: 'v' },
        timestamp: '2024-01-15T10:30:00Z',
      },
    });
    expect(created.status).toBe(200);
    expect(created.body.data).toHaveLength(1);
    const res = await api('GET', `/api/ledger/${ledger}/transactions/1`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        txid: 1,
        timestamp: '2024-01-15T10:30:00.000Z',
        postings: [posting('users:1', 'users:2', 40), posting('world', 'users:2', 5, 'EUR')],
        reference: 'ref-11',
        metadata: { k: 'v' },
        preCommitVolumes: {
          'users:1': { 'USD/2': { input: 100, output: 0, balance: 100 } },
          'users:2': { 'USD/2': { input: 0, output: 0, balance: 0 }, EUR: { input: 0, output: 0, balance: 0 } },
          world: { EUR: { input: 0, output: 0, balance: 0 } },
        },
        postCommitVolumes: {
          'users:1': { 'USD/2': { input: 100, output: 40, balance: 60 } },
          'users:2': { 'USD/2': { input: 40, output: 0, balance: 40 }, EUR: { input: 5, output: 0, balance: 5 } },
          world: { EUR: { input: 0, output: 5, balance: -5 } },
        },
      },
    });
    expect(created.body.data[0]).toEqual(res.body.data);
    expect((await api('GET', `/api/ledger/${ledger}/transactions/0`)).body.data.reference).toBe('');
    for (const bad of ['-1', 'abc', '1.5']) {
      const r = await api('GET', `/api/ledger/${ledger}/transactions/${bad}`);
      expect(r.status).toBe(400);
      expect(r.body.errorCode).toBe('VALIDATION');
    }
    expect((await api('GET', `/api/ledger/${ledger}/transactions/42`)).status).toBe(404);
    expect((await api('GET', '/api/ledger/missing-ledger-z/transactions/0')).body.errorCode).toBe('LEDGER_NOT_FOUND');
  });

  it('lists transactions newest first with account, source, destination, reference, metadata and time filters', async () => {
    const ledger = await newLedger('list');
    await postTransaction(ledger, { postings: [posting('world', 'users:1', 10)], metadata: { kind: 'fund' }, timestamp: '2024-01-01T00:00:00Z' });
    await postTransaction(ledger, { postings: [posting('users:1', 'shops:1', 3)], reference: 'buy-1', timestamp: '2024-02-01T00:00:00Z' });
    await postTransaction(ledger, { postings: [posting('users:1', 'users:2:sub', 3)], timestamp: '2024-03-01T00:00:00Z' });
    const ids = async (query: string) => (await api('GET', `/api/ledger/v2/${ledger}/transactions${query}`)).body.cursor.data.map((t: any) => t.id);
    expect(await ids('')).toEqual([2, 1, 0]);
    expect(await ids('?account=users:1')).toEqual([2, 1, 0]);
    expect(await ids('?source=users:1')).toEqual([2, 1]);
    expect(await ids('?destination=shops:1')).toEqual([1]);
    expect(await ids('?destination=users:')).toEqual([0]);
    expect(await ids('?destination=users:...')).toEqual([2, 0]);
    expect(await ids('?reference=buy-1')).toEqual([1]);
    expect(await ids('?metadata[kind]=fund')).toEqual([0]);
    expect(await ids('?startTime=2024-02-01T00:00:00Z&endTime=2024-03-01T00:00:00Z')).toEqual([1]);
    const page1 = await api('GET', `/api/ledger/v2/${ledger}/transactions?pageSize=2`);
    const page2 = await api('GET', `/api/ledger/v2/${ledger}/transactions?cursor=${page1.body.cursor.next}`);
    expect(page2.body.cursor.data.map((t: any) => t.id)).toEqual([0]);
    expect((await api('GET', `/api/ledger/v2/${ledger}/transactions?unknown=1`)).status).toBe(400);
  });

  it('lists accounts with patterns and metadata, and aggregates balances to zero over the ledger', async () => {
    const ledger = await newLedger('acc');
    await postTransaction(ledger, { postings: [posting('world', 'users:1', 10), posting('world', 'users:2', 5), posting('world', 'shops:1', 1)] });
    await api('POST', `/api/ledger/v2/${ledger}/accounts/users:2/metadata`, { body: { vip: 'yes' } });
    const list = await api('GET', `/api/ledger/v2/${ledger}/accounts?address=users:`);
    expect(list.body.cursor.data.map((a: any) => a.address)).toEqual(['users:1', 'users:2']);
    expect(list.body.cursor.data[1]).toEqual({
      address: 'users:2',
      metadata: { vip: 'yes' },
      volumes: { 'USD/2': { input: 5, output: 0, balance: 5 } },
      effectiveVolumes: { 'USD/2': { input: 5, output: 0, balance: 5 } },
    });
    const vip = await api('GET', `/api/ledger/v2/${ledger}/accounts?metadata[vip]=yes`);
    expect(vip.body.cursor.data.map((a: any) => a.address)).toEqual(['users:2']);
    expect((await api('GET', `/api/ledger/v2/${ledger}/aggregate/balances`)).body.data).toEqual({ 'USD/2': 0 });
    expect((await api('GET', `/api/ledger/v2/${ledger}/aggregate/balances?address=users:`)).body.data).toEqual({ 'USD/2': 15 });
  });

  it('writes COMMITTED_TRANSACTIONS, SAVED_METADATA and REVERTED_TRANSACTION events in Formance shapes', async () => {
    const ledger = await newLedger('evt');
    const tx = await postTransaction(ledger, { postings: [posting('world', 'e:1', 3)] });
    await api('POST', `/api/ledger/v2/${ledger}/transactions/0/metadata`, { body: { a: 'b' } });
    await api('POST', `/api/ledger/v2/${ledger}/transactions/0/revert?force=true`);
    await postTransaction(ledger, { postings: [posting('world', 'e:1', 3)] }, {}, '?dryRun=true');
    const rows = await db('events_outbox').whereRaw(`payload::jsonb->>'ledger' = ?`, [ledger]).orderBy('seq');
    const events = rows.map((r: any) => ({ app: r.app, type: r.type, payload: JSON.parse(r.payload) }));
    expect(events.map((e) => e.type)).toEqual(['COMMITTED_TRANSACTIONS', 'SAVED_METADATA', 'REVERTED_TRANSACTION']);
    expect(events[0]).toEqual({
      app: 'ledger',
      type: 'COMMITTED_TRANSACTIONS',
      payload: { ledger, transactions: [tx.body.data], accountMetadata: {} },
    });
    expect(events[1].payload).toEqual({ ledger, targetType: 'TRANSACTION', targetId: 0, metadata: { a: 'b' } });
    expect(events[2].payload.revertedTransaction).toMatchObject({ id: 0, reverted: true });
    expect(events[2].payload.revertTransaction).toMatchObject({ id: 1, postings: [posting('e:1', 'world', 3)] });
  });
});
