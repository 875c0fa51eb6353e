import { createDb, type Db } from '../../../db/knex';
import { runBulk, type BulkElement } from '../../../areas/ledger';
import { api } from '../../support/http';
import { balance } from '../../support/ledger-fixtures';
import { ledgerViolations, logAndEventViolations } from '../../support/ledger-invariants';
import { newLedger, posting, postTransaction } from '../../support/ledger';

/**
 * Bulks that mix every element kind (transactions, forced ones with account metadata, reverts, metadata added and
 * deleted on accounts and transactions) are committed as batches of the write pipeline: these pin that element order,
 * dense txids and log ids, each element's outcome, and the hash chain are those of running the elements one by one.
 */

const send = (source: string, destination: string, amount: number, extra: Record<string, unknown> = {}) => ({
  action: 'CREATE_TRANSACTION',
  data: { postings: [posting(source, destination, amount)], ...extra },
});
const revert = (id: number) => ({ action: 'REVERT_TRANSACTION', data: { id } });
const addAccount = (targetId: string, metadata: Record<string, string>) => ({
  action: 'ADD_METADATA',
  data: { targetType: 'ACCOUNT', targetId, metadata },
});
const addTx = (targetId: number, metadata: Record<string, string>) => ({
  action: 'ADD_METADATA',
  data: { targetType: 'TRANSACTION', targetId, metadata },
});
const deleteAccount = (targetId: string, key: string) => ({ action: 'DELETE_METADATA', data: { targetType: 'ACCOUNT', targetId, key } });
const bulk = (ledger: string, elements: unknown[], query = '') => api('POST', `/api/ledger/v2/${ledger}/_bulk${query}`, { body: elements });

type Result = { responseType: string; logID: number; data?: { id: number; reverted: boolean }; errorCode?: string };

describe('ledger bulks mixing transactions, reverts and metadata', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 2 });
  });
  afterAll(() => db.destroy());

  const logs = async (ledger: string) =>
    (await db('ledger_logs').where({ ledger }).orderBy('id').select('id', 'type', 'data')).map((l) => [Number(l.id), l.type, l.data]);
  const account = async (ledger: string, address: string) => (await api('GET', `/api/ledger/v2/${ledger}/accounts/${address}`)).body.data;
  const transaction = async (ledger: string, id: number) => (await api('GET', `/api/ledger/v2/${ledger}/transactions/${id}`)).body.data;
  const eventTypes = async (ledger: string) =>
    (await db('events_outbox').whereRaw(`payload::jsonb->>'ledger' = ?`, [ledger]).orderBy('seq').select('type')).map((e) => e.type);
  async function expectSound(ledger: string): Promise<void> {
    // `e` is overdrawn on purpose, by a forced element.
    expect(await ledgerViolations(db, ledger, (address) => address === 'world' || address === 'e')).toEqual([]);
    expect(await logAndEventViolations(db, ledger)).toEqual([]);
    // The log replays into exactly the stored state (volumes, metadata, reverts), and its hash chain holds.
    expect((await api('POST', `/api/ledger/v2/${ledger}/logs/verify`)).body.data).toMatchObject({ valid: true, mismatchCount: 0 });
  }

  /** tx 0: world -> a 10, tx 1: world -> b 5; logs 0 and 1. */
  async function seeded(): Promise<string> {
    const ledger = await newLedger('bulk-mixed');
    expect((await postTransaction(ledger, { postings: [posting('world', 'a', 10)] })).status).toBe(200);
    expect((await postTransaction(ledger, { postings: [posting('world', 'b', 5)] })).status).toBe(200);
    return ledger;
  }

  const mixed = [
    send('a', 'c', 4), // 0: tx 2, log 2
    addAccount('a', { tier: 'gold', region: 'eu' }), // 1: log 3
    revert(1), // 2: tx 3 (b -> world 5), log 4
    send('b', 'd', 1), // 3: INSUFFICIENT_FUND, b is empty once reverted
    addTx(0, { note: 'first' }), // 4: log 5
    deleteAccount('a', 'tier'), // 5: log 6
    deleteAccount('a', 'tier'), // 6: no log, the key is gone
    revert(1), // 7: ALREADY_REVERT
    revert(2), // 8: tx 4 (c -> a 4), log 7: a transaction created earlier in the same bulk
    send('e', 'f', 2, { force: true, accountMetadata: { f: { kind: 'sink' } } }), // 9: tx 5, log 8, then f's SET_METADATA, log 9
  ];

  it('not atomic, continueOnFailure: each element has its own outcome, ids and log ids dense in element order', async () => {
    const ledger = await seeded();
    const res = await bulk(ledger, mixed, '?continueOnFailure=true');
    expect(res.status).toBe(400);
    expect(res.body.errorDetails).toEqual({ index: 3, errorCode: 'INSUFFICIENT_FUND' });
    const data = res.body.data as Result[];
    expect(data.map((r) => [r.responseType, r.data?.id ?? null, r.logID, r.errorCode ?? null])).toEqual([
      ['CREATE_TRANSACTION', 2, 2, null],
      ['ADD_METADATA', null, 3, null],
      ['REVERT_TRANSACTION', 3, 4, null],
      ['ERROR', null, -1, 'INSUFFICIENT_FUND'],
      ['ADD_METADATA', null, 5, null],
      ['DELETE_METADATA', null, 6, null],
      ['DELETE_METADATA', null, -1, null],
      ['ERROR', null, -1, 'ALREADY_REVERT'],
      ['REVERT_TRANSACTION', 4, 7, null],
      ['CREATE_TRANSACTION', 5, 8, null],
    ]);
    expect((await logs(ledger)).map(([id, type]) => [id, type])).toEqual([
      [0, 'NEW_TRANSACTION'],
      [1, 'NEW_TRANSACTION'],
      [2, 'NEW_TRANSACTION'],
      [3, 'SET_METADATA'],
      [4, 'REVERTED_TRANSACTION'],
      [5, 'SET_METADATA'],
      [6, 'DELETE_METADATA'],
      [7, 'REVERTED_TRANSACTION'],
      [8, 'NEW_TRANSACTION'],
      [9, 'SET_METADATA'],
    ]);
    expect((await logs(ledger))[9][2]).toEqual({ targetType: 'ACCOUNT', targetId: 'f', metadata: { kind: 'sink' } });
    expect((await logs(ledger))[7][2]).toMatchObject({ revertedTransaction: { id: 2, reverted: true }, transaction: { id: 4 } });
    expect(
      [await balance(ledger, 'a'), await balance(ledger, 'b'), await balance(ledger, 'c'), await balance(ledger, 'd')].concat([
        await balance(ledger, 'e'),
        await balance(ledger, 'f'),
      ]),
    ).toEqual([10n, 0n, 0n, 0n, -2n, 2n]);
    expect((await account(ledger, 'a')).metadata).toEqual({ region: 'eu' });
    expect((await account(ledger, 'f')).metadata).toEqual({ kind: 'sink' });
    expect(await transaction(ledger, 0)).toMatchObject({ metadata: { note: 'first' }, reverted: false });
    expect(await transaction(ledger, 1)).toMatchObject({ reverted: true });
    expect(await transaction(ledger, 2)).toMatchObject({ reverted: true });
    expect(await eventTypes(ledger)).toEqual([
      'COMMITTED_TRANSACTIONS',
      'COMMITTED_TRANSACTIONS',
      'COMMITTED_TRANSACTIONS',
      'SAVED_METADATA',
      'REVERTED_TRANSACTION',
      'SAVED_METADATA',
      'DELETED_METADATA',
      'REVERTED_TRANSACTION',
      'COMMITTED_TRANSACTIONS',
    ]);
    await expectSound(ledger);
  });

  it('not atomic, stopping at the first refusal: what ran before it is committed, nothing after it', async () => {
    const ledger = await seeded();
    const res = await bulk(ledger, mixed);
    expect(res.status).toBe(400);
    expect((res.body.data as Result[]).map((r) => [r.responseType, r.logID])).toEqual([
      ['CREATE_TRANSACTION', 2],
      ['ADD_METADATA', 3],
      ['REVERT_TRANSACTION', 4],
      ['ERROR', -1],
    ]);
    expect((await logs(ledger)).map(([id]) => id)).toEqual([0, 1, 2, 3, 4]);
    expect((await account(ledger, 'a')).metadata).toEqual({ tier: 'gold', region: 'eu' });
    expect(await transaction(ledger, 0)).toMatchObject({ metadata: {} });
    expect(await balance(ledger, 'f')).toBe(0n);
    // The next write takes the next ids: nothing after the refusal consumed one.
    const next = await bulk(ledger, [send('world', 'g', 1)]);
    expect((next.body.data as Result[])[0]).toMatchObject({ data: { id: 4 }, logID: 5 });
    await expectSound(ledger);
  });

  it('atomic: a refusal in the middle writes nothing; without it the whole bulk commits in element order', async () => {
    const ledger = await seeded();
    const refused = await bulk(ledger, mixed, '?atomic=true');
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ errorCode: 'INSUFFICIENT_FUND', errorDetails: { index: 3 } });
    expect((await logs(ledger)).map(([id]) => id)).toEqual([0, 1]);
    expect((await account(ledger, 'a')).metadata).toEqual({});
    expect(await transaction(ledger, 1)).toMatchObject({ reverted: false });

    // The same bulk without its two refused elements.
    const accepted = mixed.filter((_, i) => i !== 3 && i !== 7);
    const ok = await bulk(ledger, accepted, '?atomic=true');
    expect(ok.status).toBe(200);
    expect((ok.body.data as Result[]).map((r) => [r.responseType, r.data?.id ?? null, r.logID])).toEqual([
      ['CREATE_TRANSACTION', 2, 2],
      ['ADD_METADATA', null, 3],
      ['REVERT_TRANSACTION', 3, 4],
      ['ADD_METADATA', null, 5],
      ['DELETE_METADATA', null, 6],
      ['DELETE_METADATA', null, -1],
      ['REVERT_TRANSACTION', 4, 7],
      ['CREATE_TRANSACTION', 5, 8],
    ]);
    expect((await logs(ledger)).map(([id]) => id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect([await balance(ledger, 'a'), await balance(ledger, 'b'), await balance(ledger, 'e'), await balance(ledger, 'f')]).toEqual([
      10n,
      0n,
      -2n,
      2n,
    ]);
    expect((await account(ledger, 'a')).metadata).toEqual({ region: 'eu' });
    await expectSound(ledger);
  });

  it('atomic: a second revert of one transaction is ALREADY_REVERT and undoes the bulk', async () => {
    const ledger = await seeded();
    const res = await bulk(ledger, [revert(0), addAccount('a', { x: '1' }), revert(0)], '?atomic=true');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorCode: 'ALREADY_REVERT', errorDetails: { index: 2 } });
    expect(await transaction(ledger, 0)).toMatchObject({ reverted: false });
    expect((await account(ledger, 'a')).metadata).toEqual({});
    await expectSound(ledger);
  });

  it('metadata of a transaction the bulk creates, and of one that does not exist', async () => {
    const ledger = await seeded();
    const res = await bulk(
      ledger,
      [send('world', 'h', 1), addTx(2, { made: 'here' }), addTx(99, { no: 'pe' }), send('world', 'h', 1)],
      '?continueOnFailure=true',
    );
    expect((res.body.data as Result[]).map((r) => [r.responseType, r.logID, r.errorCode ?? null])).toEqual([
      ['CREATE_TRANSACTION', 2, null],
      ['ADD_METADATA', 3, null],
      ['ERROR', -1, 'NOT_FOUND'],
      ['CREATE_TRANSACTION', 4, null],
    ]);
    expect(await transaction(ledger, 2)).toMatchObject({ metadata: { made: 'here' } });
    expect(await transaction(ledger, 3)).toMatchObject({ id: 3 });
    await expectSound(ledger);
  });

  it('atomic: metadata and a revert of one transaction in one bulk, including one the bulk created; events carry each as it was', async () => {
    const ledger = await seeded();
    const res = await bulk(
      ledger,
      [send('world', 'x', 3), addTx(2, { a: '1' }), revert(2), addTx(0, { b: '2' }), revert(0), addTx(0, { c: '3' })],
      '?atomic=true',
    );
    expect(res.status).toBe(200);
    expect((res.body.data as Result[]).map((r) => [r.responseType, r.data?.id ?? null, r.logID])).toEqual([
      ['CREATE_TRANSACTION', 2, 2],
      ['ADD_METADATA', null, 3],
      ['REVERT_TRANSACTION', 3, 4],
      ['ADD_METADATA', null, 5],
      ['REVERT_TRANSACTION', 4, 6],
      ['ADD_METADATA', null, 7],
    ]);
    const reverted = (
      await db('events_outbox')
        .whereRaw(`payload::jsonb->>'ledger' = ?`, [ledger])
        .where({ type: 'REVERTED_TRANSACTION' })
        .orderBy('seq')
        .select('payload')
    ).map((e) => JSON.parse(e.payload).revertedTransaction);
    expect(reverted).toMatchObject([
      { id: 2, metadata: { a: '1' }, reverted: true },
      { id: 0, metadata: { b: '2' }, reverted: true },
    ]);
    expect(await transaction(ledger, 0)).toMatchObject({ metadata: { b: '2', c: '3' }, reverted: true });
    expect(await transaction(ledger, 2)).toMatchObject({ metadata: { a: '1' }, reverted: true });
    expect(await transaction(ledger, 4)).toMatchObject({ metadata: { 'com.formance.spec/state/reverts': '0' } });
    expect([await balance(ledger, 'a'), await balance(ledger, 'x')]).toEqual([0n, 0n]);
    await expectSound(ledger);
  });

  it('commits a mixed bulk with the same statements whatever its number of elements: one per table for the batch', async () => {
    const statementsFor = async (n: number) => {
      const ledger = await seeded();
      const elements: BulkElement[] = [{ action: 'REVERT_TRANSACTION', data: { id: 1n } }];
      for (let i = 0; i < n; i++) {
        elements.push(
          { action: 'CREATE_TRANSACTION', data: { postings: [{ source: 'world', destination: `u:${i}`, amount: 1n, asset: 'USD/2' }] } },
          { action: 'ADD_METADATA', data: { targetType: 'ACCOUNT', targetId: `u:${i}`, metadata: { i: String(i) } } },
          { action: 'ADD_METADATA', data: { targetType: 'TRANSACTION', targetId: 0n, metadata: { [`k${i}`]: 'v' } } },
          { action: 'DELETE_METADATA', data: { targetType: 'ACCOUNT', targetId: 'a', key: 'absent' } },
        );
      }
      const seen: string[] = [];
      const listener = (query: { sql: string }) => seen.push(query.sql.replace(/\s+/g, ' ').trim());
      db.on('query', listener);
      try {
        const { results, failedAt } = await runBulk(db, ledger, elements, { atomic: true });
        expect(failedAt).toBeUndefined();
        expect(results.map((r) => r.logID)).toEqual([
          2n,
          ...Array.from({ length: n }, (_, i) => [3n + 3n * BigInt(i), 4n + 3n * BigInt(i), 5n + 3n * BigInt(i), -1n]).flat(),
        ]);
      } finally {
        db.off('query', listener);
      }
      await expectSound(ledger);
      return seen;
    };
    const small = await statementsFor(2);
    const large = await statementsFor(25);
    expect(large).toHaveLength(small.length);
    expect(large.filter((sql) => /INSERT INTO ledger_logs/.test(sql))).toHaveLength(1);
    expect(large.filter((sql) => /INSERT INTO ledger_transactions/.test(sql))).toHaveLength(1);
  });

  it('with a schema version: account metadata, chart defaults, templates and forced writes in one bulk, as the single routes do', async () => {
    const ledger = await newLedger('bulk-schema');
    const chart = {
      world: {},
      bank: {},
      users: { $id: { '.pattern': '^[0-9]+$', '.metadata': { tier: { default: 'basic' }, region: { default: 'eu' } } } },
    };
    const deposit = 'vars { account $user }\nsend [USD/2 100] (\n  source = @world\n  destination = $user\n)';
    const toShop = 'send [USD/2 1] (\n  source = @world\n  destination = @shop\n)';
    const schema = await api('POST', `/api/ledger/v2/${ledger}/schemas/v1`, {
      body: { chart, transactions: { deposit: { script: deposit }, toShop: { script: toShop } } },
    });
    expect(schema.status).toBe(204);
    const res = await bulk(
      ledger,
      [
        addAccount('users:1', { tier: 'gold' }),
        send('world', 'users:1', 5, { accountMetadata: { 'users:2': { region: 'us' } } }),
        // A script after account metadata of its bulk: it may read that metadata, so it sees it committed.
        { action: 'CREATE_TRANSACTION', data: { script: { template: 'deposit', vars: { user: 'users:3' } } } },
        { action: 'CREATE_TRANSACTION', data: { script: { template: 'toShop' } } },
        deleteAccount('users:3', 'tier'),
        send('users:1', 'bank', 100, { force: true }),
      ],
      '?schemaVersion=v1&continueOnFailure=true',
    );
    expect(res.status).toBe(400);
    expect((res.body.data as Result[]).map((r) => [r.responseType, r.data?.id ?? null, r.logID, r.errorCode ?? null])).toEqual([
      ['ADD_METADATA', null, 1, null],
      ['CREATE_TRANSACTION', 0, 2, null],
      ['CREATE_TRANSACTION', 1, 5, null],
      ['ERROR', null, -1, 'VALIDATION'],
      ['DELETE_METADATA', null, 7, null],
      ['CREATE_TRANSACTION', 2, 8, null],
    ]);
    expect((res.body.data as Result[])[3]).toMatchObject({ errorDescription: expect.stringContaining('script postings[0].destination') });
    expect((await logs(ledger)).map(([id, type, data]) => [id, type, type === 'SET_METADATA' ? data : null])).toEqual([
      [0, 'INSERTED_SCHEMA', null],
      [1, 'SET_METADATA', { targetType: 'ACCOUNT', targetId: 'users:1', metadata: { tier: 'gold' } }],
      [2, 'NEW_TRANSACTION', null],
      [3, 'SET_METADATA', { targetType: 'ACCOUNT', targetId: 'users:1', metadata: { region: 'eu' } }],
      [4, 'SET_METADATA', { targetType: 'ACCOUNT', targetId: 'users:2', metadata: { region: 'us' } }],
      [5, 'NEW_TRANSACTION', null],
      [6, 'SET_METADATA', { targetType: 'ACCOUNT', targetId: 'users:3', metadata: { tier: 'basic', region: 'eu' } }],
      [7, 'DELETE_METADATA', null],
      [8, 'NEW_TRANSACTION', null],
    ]);
    expect((await account(ledger, 'users:1')).metadata).toEqual({ tier: 'gold', region: 'eu' });
    expect((await account(ledger, 'users:2')).metadata).toEqual({ region: 'us' });
    expect((await account(ledger, 'users:3')).metadata).toEqual({ region: 'eu' });
    expect([await balance(ledger, 'users:1'), await balance(ledger, 'users:3'), await balance(ledger, 'bank')]).toEqual([-95n, 100n, 100n]);
    expect(await ledgerViolations(db, ledger, (address) => address === 'world' || address === 'users:1')).toEqual([]);
    expect(await logAndEventViolations(db, ledger)).toEqual([]);
    expect((await api('POST', `/api/ledger/v2/${ledger}/logs/verify`)).body.data).toMatchObject({ valid: true, mismatchCount: 0 });
  });
});
