import { createDb, type Db } from '../../../db/knex';
import { api } from '../../support/http';
import { ledgerViolations } from '../../support/ledger-invariants';
import { credit, debit, mainBalance, newWallet } from '../../support/wallets';

describe('wallets under concurrency', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 2 });
  });
  afterAll(() => db.destroy());

  it('parallel debits never overdraw a wallet', async () => {
    const id = await newWallet();
    await credit(id, 100);
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => debit(id, 9, i % 2 ? { pending: true } : {})));
    const ok = results.filter((r) => r.status === 204 || r.status === 201);
    expect(ok).toHaveLength(11);
    expect(results.filter((r) => r.body?.errorCode === 'INSUFFICIENT_FUND')).toHaveLength(14);
    expect(await mainBalance(id)).toBe(1);
  });

  it('concurrent confirms and voids settle a hold exactly once', async () => {
    const id = await newWallet();
    await credit(id, 50);
    const merchant = `merchants:${id}`;
    const hold = (await debit(id, 50, { pending: true, destination: { type: 'ACCOUNT', identifier: merchant } })).body.data.id;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => api('POST', `/api/wallets/holds/${hold}/${i % 2 ? 'void' : 'confirm'}`)),
    );
    expect(results.filter((r) => r.status === 204)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400 && r.body.errorCode === 'HOLD_CLOSED')).toHaveLength(9);
    const settled = (await api('GET', `/api/wallets/holds/${hold}`)).body.data;
    expect(settled).toMatchObject({ remaining: 0, closed: true });
    // either all went to the merchant or all came back: never both, never twice
    const toMerchant = (await api('GET', `/api/ledger/v2/wallets/accounts/${merchant}`)).body.data.volumes['USD/2']?.input ?? 0;
    expect([[50, 0], [0, 50]]).toContainEqual([await mainBalance(id), toMerchant]);
  });

  it('concurrent partial confirms never take more than the hold', async () => {
    const id = await newWallet();
    await credit(id, 30);
    const hold = (await debit(id, 30, { pending: true })).body.data.id;
    const results = await Promise.all(Array.from({ length: 8 }, () => api('POST', `/api/wallets/holds/${hold}/confirm`, { body: { amount: 7 } })));
    expect(results.filter((r) => r.status === 204)).toHaveLength(4);
    expect((await api('GET', `/api/wallets/holds/${hold}`)).body.data).toMatchObject({ remaining: 2, closed: false });
  });

  it('op 9 pagination visits every transaction exactly once while new ones are written', async () => {
    const id = await newWallet();
    for (let i = 0; i < 12; i++) await credit(id, 1);
    const seen: number[] = [];
    let writing = true;
    const writer = (async () => {
      while (writing) await credit(id, 1);
    })();
    let page = await api('GET', `/api/wallets/transactions?walletID=${id}&pageSize=3`);
    const firstTop = page.body.cursor.data[0].id;
    for (;;) {
      seen.push(...page.body.cursor.data.map((t: any) => t.id));
      if (!page.body.cursor.hasMore) break;
      page = await api('GET', `/api/wallets/transactions?cursor=${page.body.cursor.next}`);
    }
    writing = false;
    await writer;
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
    const all = await db('ledger_transactions').where({ ledger: 'wallets' }).whereRaw('destinations @> ARRAY[?]::text[]', [`wallets:${id}:main`]).where('id', '<=', firstTop).count({ n: '*' });
    expect(seen).toHaveLength(Number(all[0].n));
  });

  it('leaves the wallets ledger balanced with no negative non-world account', async () => {
    expect(await ledgerViolations(db, 'wallets')).toEqual([]);
  });
});
