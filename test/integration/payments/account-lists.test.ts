import { randomUUID } from 'node:crypto';
import type { Db } from '../../../db/knex';
import { api } from '../../support/http';
import { seedConnector, testDb } from '../../support/payments';

/**
 * The account lists (v3 and v1) are written by PostgreSQL (areas/payments/accounts/account-list.ts); the single reads by the
 * API. Each listed account must be what its single read answers, whatever its optional members, text and raw data.
 * The accounts are dated in 2999 so that they head v1's list, which has no filter, whatever other tests store.
 */
describe('payments account lists, v3 and v1', () => {
  let db: Db;
  let connectorID: string;
  let accountIDs: string[];
  const big = 2n ** 70n + 1n;

  beforeAll(async () => {
    db = testDb();
    ({ connectorID, accountIDs } = await seedConnector(db, [
      { reference: 'plain', createdAt: new Date('2999-01-01T00:00:00.000Z') },
      {
        reference: 'odd',
        type: 'EXTERNAL',
        name: 'Ünïcode "quoted"\nname',
        defaultAsset: 'EUR/2',
        createdAt: new Date('2999-02-28T23:59:59.999Z'),
        metadata: { 'quote"key': 'line\nbreak', emoji: '€💶', '123': 'index-like key' },
        raw: { nested: { list: [1, 'two', null, { deep: true }] }, exact: big, float: 1.5, empty: {} },
      },
      { reference: 'empty-name', name: '', defaultAsset: '', createdAt: new Date('2999-03-01T12:00:00.001Z') },
      { reference: 'open-banking', createdAt: new Date('2999-04-01T00:00:00.000Z') },
    ]));
    // The members only accounts of an end user's bank connection have, and a pool (v1 lists an account's pools).
    await db('payments_accounts')
      .where({ id: accountIDs[3] })
      .update({ psu_id: randomUUID(), open_banking_connection_id: `conn-${randomUUID()}` });
    const poolIDs = [randomUUID(), randomUUID()].sort();
    for (const id of poolIDs) {
      await db('payments_pools').insert({ id, name: `account-lists-${id}` });
      await db('payments_pool_accounts').insert({ pool_id: id, account_id: accountIDs[3] });
    }
  });
  afterAll(async () => db.destroy());

  const byConnector = () => encodeURIComponent(JSON.stringify({ $match: { connectorID } }));
  const newestFirst = () => [...accountIDs].reverse();

  it('v3: writes each account as its single read does, newest first, with the optional members only when set', async () => {
    const res = await api('GET', `/api/payments/v3/accounts?pageSize=1000&query=${byConnector()}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const listed = res.body.cursor.data;
    expect(listed.map((a: any) => a.id)).toEqual(newestFirst());
    for (const account of listed) {
      const read = await api('GET', `/api/payments/v3/accounts/${encodeURIComponent(account.id)}`);
      expect(read.status).toBe(200);
      expect(account).toEqual(read.body.data);
    }
    const [openBanking, emptyName, odd, plain] = listed;
    expect(Object.keys(plain)).toEqual(['id', 'connectorID', 'provider', 'reference', 'type', 'createdAt', 'metadata', 'raw']);
    expect(Object.keys(emptyName)).not.toContain('name');
    expect(odd).toMatchObject({
      name: 'Ünïcode "quoted"\nname',
      defaultAsset: 'EUR/2',
      createdAt: '2999-02-28T23:59:59.999Z',
      provider: 'SIMULATED',
    });
    expect(openBanking.psuID).toMatch(/^[0-9a-f-]{36}$/);
    expect(openBanking.openBankingConnectionID).toMatch(/^conn-/);
    // Beyond 2^53 the digits must survive: compare the raw text, not numbers parsed by a client.
    expect(res.text).toContain(`"exact": ${big}`);
  });

  it('v3: pages forward and back with its cursors over the same accounts', async () => {
    const seen: string[] = [];
    let res = await api('GET', `/api/payments/v3/accounts?pageSize=1&query=${byConnector()}`);
    for (;;) {
      expect(res.status).toBe(200);
      seen.push(...res.body.cursor.data.map((a: any) => a.id));
      if (!res.body.cursor.hasMore) break;
      res = await api('GET', `/api/payments/v3/accounts?cursor=${encodeURIComponent(res.body.cursor.next)}`);
    }
    expect(seen).toEqual(newestFirst());
    const back = await api('GET', `/api/payments/v3/accounts?cursor=${encodeURIComponent(res.body.cursor.previous)}`);
    expect(back.status).toBe(200);
    expect(back.body.cursor.data.map((a: any) => a.id)).toEqual([newestFirst()[2]]);
    expect(back.body.cursor.next).not.toBe('');
  });

  it('v1: writes each account as its single read does, with its pools and empty strings for what is unset', async () => {
    const res = await api('GET', '/api/payments/accounts?pageSize=4');
    expect(res.status).toBe(200);
    const listed = res.body.cursor.data;
    expect(listed.map((a: any) => a.id)).toEqual(newestFirst());
    for (const account of listed) {
      const read = await api('GET', `/api/payments/accounts/${encodeURIComponent(account.id)}`);
      expect(read.status).toBe(200);
      expect(account).toEqual(read.body.data);
    }
    const [openBanking, , , plain] = listed;
    expect(plain).toMatchObject({ accountName: '', defaultAsset: '', defaultCurrency: '', pools: [], raw: {}, metadata: {} });
    expect(openBanking.pools).toHaveLength(2);
  });
});
