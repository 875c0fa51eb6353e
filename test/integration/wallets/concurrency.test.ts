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
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => api('POST', `/api/wallets/holds/${hold}/${i % 2 ? 'void' : 'confirm'}`)));
    expect(results.filter((r) => r.status === 204)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400 && r.body.errorCode === 'HOLD_CLOSED')).toHaveLength(9);
    const settled = (await api('GET', `/api/wallets/holds/${hold}`)).body.data;
    expect(settled).toMatchObject({ remaining: 0, closed: true });
    // either all went to the merchant or all came back: never both, never twice
    const toMerchant = (await api('GET', `/api/ledger/v2/wallets/accounts/${merchant}`)).body.data.volumes['USD/2']?.input ?? 0;
    expect([
      [50, 0],
      [0, 50],
    ]).toContainEqual([await mainBalance(id), toMerchant]);
  });

  it("concurrent wallet writes share the wallets ledger's batches, each hold written in its debit's transaction", async () => {
    const wallets = await Promise.all(Array.from({ length: 8 }, () => newWallet()));
    await Promise.all(wallets.map((id) => credit(id, 40)));
    const debits = await Promise.all(Array.from({ length: 32 }, (_, i) => debit(wallets[i % 8], 5, { pending: true })));
    expect(debits.map((r) => r.status)).toEqual(Array(32).fill(201));
    const holdIds: string[] = debits.map((r) => r.body.data.id);
    // A hold row and the ledger transaction that funded it were committed by the same database transaction.
    const rows = await db('wallet_holds as h')
      .join('ledger_transactions as t', function joinFunding() {
        this.on('t.ledger', '=', db.raw('?', ['wallets'])).andOn(db.raw("t.metadata->>'wallets/holds/id' = h.id::text"));
      })
      .whereIn('h.id', holdIds)
      .select('h.id', db.raw('h.xmin::text AS hold_xmin'), db.raw('t.xmin::text AS tx_xmin'));
    expect(rows).toHaveLength(32);
    for (const row of rows) expect(row.hold_xmin).toBe(row.tx_xmin);
    // 32 concurrent writes from one API process: group commit put several in one transaction.
    expect(new Set(rows.map((r: { tx_xmin: string }) => r.tx_xmin)).size).toBeLessThan(32);

    const settles = await Promise.all(
      holdIds.flatMap((hold, i) => [
        api('POST', `/api/wallets/holds/${hold}/${i % 2 ? 'void' : 'confirm'}`),
        api('POST', `/api/wallets/holds/${hold}/confirm`),
      ]),
    );
    expect(settles.filter((r) => r.status === 204)).toHaveLength(32);
    expect(settles.filter((r) => r.status === 400 && r.body.errorCode === 'HOLD_CLOSED')).toHaveLength(32);
    for (const hold of holdIds) expect((await api('GET', `/api/wallets/holds/${hold}`)).body.data).toMatchObject({ remaining: 0, closed: true });
    // Each wallet had 40 and held 4 x 5. Even wallets' holds were only confirmed (20 left); an odd wallet's hold went
    // back when its void won the race against the confirm.
    const balances = await Promise.all(wallets.map((id) => mainBalance(id)));
    expect(balances.filter((_b, w) => w % 2 === 0)).toEqual([20, 20, 20, 20]);
    expect(balances.reduce((sum, b) => sum + b, 0)).toBeGreaterThanOrEqual(8 * 20);
    expect(balances.reduce((sum, b) => sum + b, 0)).toBeLessThanOrEqual(8 * 20 + 16 * 5);
    expect(await ledgerViolations(db, 'wallets')).toEqual([]);
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
    const all = await db('ledger_transactions')
      .where({ ledger: 'wallets' })
      .whereRaw('destinations @> ARRAY[?]::text[]', [`wallets:${id}:main`])
      .where('id', '<=', firstTop)
      .count({ n: '*' });
    expect(seen).toHaveLength(Number(all[0].n));
  });

  it('leaves the wallets ledger balanced with no negative non-world account', async () => {
    expect(await ledgerViolations(db, 'wallets')).toEqual([]);
  });
});
