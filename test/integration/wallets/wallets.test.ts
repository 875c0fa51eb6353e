import { randomUUID } from 'node:crypto';
import { api } from '../../support/http';
import { credit, debit, mainBalance as main, newWallet, unique } from '../../support/wallets';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z$/;

describe('wallets over HTTP', () => {
  it('creates, reads, lists and annotates wallets in the spec shapes', async () => {
    const name = `shape-${unique()}`;
    const created = await api('POST', '/api/wallets/wallets', { body: { name, metadata: { team: 'a' } } });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect(created.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name,
      metadata: { team: 'a' },
      createdAt: expect.stringMatching(ISO),
      ledger: 'wallets',
      balances: { main: { assets: {} } },
    });
    await credit(id, 100);
    const read = await api('GET', `/api/wallets/wallets/${id}`);
    expect(read.body.data.balances).toEqual({ main: { assets: { 'USD/2': 100 } } });
    const list = await api('GET', `/api/wallets/wallets?name=${name}`);
    expect(list.body.cursor.data).toEqual([{ id, name, metadata: { team: 'a' }, createdAt: created.body.data.createdAt, ledger: 'wallets' }]);
    expect((await api('PATCH', `/api/wallets/wallets/${id}`, { body: { metadata: { tier: 'gold' } } })).status).toBe(204);
    const byMeta = await api('GET', `/api/wallets/wallets?metadata[tier]=gold&name=${name}`);
    expect(byMeta.body.cursor.data.map((w: any) => w.id)).toEqual([id]);
    expect((await api('GET', `/api/wallets/wallets/${randomUUID()}`)).status).toBe(404);
    expect((await api('GET', '/api/wallets/wallets/not-a-uuid')).status).toBe(404);
  });

  it('credits and debits an asset with a `_` (COIN_RED), which a Numscript literal cannot write', async () => {
    const id = (await api('POST', '/api/wallets/wallets', { body: { name: `colored-${unique()}` } })).body.data.id;
    expect((await credit(id, 30, { amount: { asset: 'COIN_RED', amount: 30 } })).status).toBe(204);
    expect((await debit(id, 12, { amount: { asset: 'COIN_RED', amount: 12 } })).status).toBe(204);
    expect((await api('GET', `/api/wallets/wallets/${id}`)).body.data.balances).toEqual({ main: { assets: { COIN_RED: 18 } } });
  });

  it('honours Idempotency-Key on create', async () => {
    const key = `wk-${unique()}`;
    const body = { name: `idem-${unique()}` };
    const [a, b] = await Promise.all([1, 2].map(() => api('POST', '/api/wallets/wallets', { body, headers: { 'Idempotency-Key': key } })));
    expect(a.body.data.id).toBe(b.body.data.id);
    expect((await api('POST', '/api/wallets/wallets', { body: { name: 'other' }, headers: { 'Idempotency-Key': key } })).status).toBe(409);
  });

  it('credits from world, accounts and wallets, into named balances; debits them in priority order', async () => {
    const id = await newWallet();
    expect((await api('POST', `/api/wallets/wallets/${id}/balances`, { body: { name: 'bonus', priority: 2 } })).status).toBe(201);
    expect((await api('POST', `/api/wallets/wallets/${id}/balances`, { body: { name: 'gift', priority: 1 } })).status).toBe(201);
    expect((await api('POST', `/api/wallets/wallets/${id}/balances`, { body: { name: 'main' } })).status).toBe(400);
    expect((await api('POST', `/api/wallets/wallets/${id}/balances`, { body: { name: 'gift' } })).status).toBe(409);
    expect((await credit(id, 30, { balance: 'bonus' })).status).toBe(204);
    expect((await credit(id, 20, { balance: 'gift', reference: `ref-${unique()}` })).status).toBe(204);
    expect((await credit(id, 50)).status).toBe(204);
    const other = await newWallet();
    await credit(other, 10);
    expect((await credit(id, 10, { sources: [{ type: 'WALLET', identifier: other }] })).status).toBe(204);
    expect(await main(other)).toBe(0);
    expect((await credit(id, 1, { sources: [{ type: 'WALLET', identifier: other }] })).body.errorCode).toBe('INSUFFICIENT_FUND');
    expect((await credit(id, 1, { balance: 'nope' })).status).toBe(400);
    // bonus (priority 2) first, then gift, then main
    expect((await debit(id, 40, { balances: ['*'] })).status).toBe(204);
    const balances = (await api('GET', `/api/wallets/wallets/${id}`)).body.data.balances;
    expect(balances).toEqual({ main: { assets: { 'USD/2': 60 } }, bonus: { assets: { 'USD/2': 0 } }, gift: { assets: { 'USD/2': 10 } } });
    const gift = await api('GET', `/api/wallets/wallets/${id}/balances/gift`);
    expect(gift.body.data).toEqual({ name: 'gift', expiresAt: null, priority: 1, assets: { 'USD/2': 10 } });
    const listed = await api('GET', `/api/wallets/wallets/${id}/balances`);
    expect(listed.body.cursor.data.map((b: any) => b.name)).toEqual(['main', 'bonus', 'gift']);
    expect(listed.body.cursor).toMatchObject({ hasMore: false, next: '' });
    const refused = await debit(id, 61);
    expect(refused.status).toBe(400);
    expect(refused.body.errorCode).toBe('INSUFFICIENT_FUND');
    expect((await debit(id, 60, { destination: { type: 'ACCOUNT', identifier: 'shops:1' } })).status).toBe(204);
    expect(await main(id)).toBe(0);
  });

  it('holds: pending debit, read, partial confirm, final confirm, void, closed holds', async () => {
    const id = await newWallet();
    await credit(id, 100);
    const pending = await debit(id, 40, {
      pending: true,
      description: 'order 1',
      metadata: { order: '1' },
      destination: { type: 'ACCOUNT', identifier: 'merchants:1' },
    });
    expect(pending.status).toBe(201);
    const holdId = pending.body.data.id;
    expect(pending.body.data).toEqual({
      id: holdId,
      walletID: id,
      asset: 'USD/2',
      metadata: { order: '1' },
      description: 'order 1',
      destination: { type: 'ACCOUNT', identifier: 'merchants:1' },
    });
    expect(await main(id)).toBe(60);
    const hold = await api('GET', `/api/wallets/holds/${holdId}`);
    expect(hold.body.data).toMatchObject({ originalAmount: 40, remaining: 40, asset: 'USD/2', closed: false });
    expect((await api('POST', `/api/wallets/holds/${holdId}/confirm`, { body: { amount: 50 } })).body.errorCode).toBe('INSUFFICIENT_FUND');
    expect((await api('POST', `/api/wallets/holds/${holdId}/confirm`, { body: { amount: 15 } })).status).toBe(204);
    expect((await api('GET', `/api/wallets/holds/${holdId}`)).body.data).toMatchObject({ remaining: 25, closed: false });
    // The list computes every hold's remaining amount in one query: an open, partly confirmed hold next to a fresh one.
    const other = (await debit(id, 10, { pending: true })).body.data.id;
    const listed = (await api('GET', `/api/wallets/holds?walletID=${id}`)).body.cursor.data;
    expect(listed.map((h: { id: string; remaining: number; closed: boolean }) => [h.id, h.remaining, h.closed])).toEqual([
      [holdId, 25, false],
      [other, 10, false],
    ]);
    expect((await api('POST', `/api/wallets/holds/${other}/void`)).status).toBe(204);
    expect((await api('POST', `/api/wallets/holds/${holdId}/confirm`, { body: { amount: 5, final: true } })).status).toBe(204);
    expect((await api('GET', `/api/wallets/holds/${holdId}`)).body.data).toMatchObject({ remaining: 0, closed: true });
    expect(await main(id)).toBe(80);
    const closed = await api('POST', `/api/wallets/holds/${holdId}/void`);
    expect(closed.status).toBe(400);
    expect(closed.body.errorCode).toBe('HOLD_CLOSED');

    const second = (await debit(id, 30, { pending: true })).body.data.id;
    expect(await main(id)).toBe(50);
    expect((await api('POST', `/api/wallets/holds/${second}/void`)).status).toBe(204);
    expect(await main(id)).toBe(80);
    expect((await api('POST', `/api/wallets/holds/${second}/confirm`)).body.errorCode).toBe('HOLD_CLOSED');
    const holds = await api('GET', `/api/wallets/holds?walletID=${id}`);
    expect(holds.body.cursor.data.map((h: any) => h.id)).toEqual([holdId, other, second]);
    expect((await api('GET', `/api/wallets/holds/${randomUUID()}`)).status).toBe(404);
  });

  it("op 9 lists a wallet's transactions in the WalletTransaction shape, newest first", async () => {
    const id = await newWallet();
    await credit(id, 10, { reference: `r-${unique()}` });
    await debit(id, 4);
    const res = await api('GET', `/api/wallets/transactions?walletID=${id}`);
    expect(res.status).toBe(200);
    const [newest, oldest] = res.body.cursor.data;
    expect(res.body.cursor.data).toHaveLength(2);
    expect(Object.keys(newest).sort()).toEqual([
      'id',
      'ledger',
      'metadata',
      'postCommitVolumes',
      'postings',
      'preCommitVolumes',
      'reference',
      'timestamp',
    ]);
    expect(newest.ledger).toBe('wallets');
    expect(newest.id).toBeGreaterThan(oldest.id);
    expect(newest.postings).toEqual([{ source: `wallets:${id}:main`, destination: 'world', amount: 4, asset: 'USD/2' }]);
    expect(newest.reference).toBe('');
    expect(oldest.reference).toMatch(/^r-/);
    expect(newest.preCommitVolumes[`wallets:${id}:main`]['USD/2']).toEqual({ input: 10, output: 0, balance: 10 });
    expect(newest.postCommitVolumes[`wallets:${id}:main`]['USD/2']).toEqual({ input: 10, output: 4, balance: 6 });
    expect((await api('GET', `/api/wallets/transactions?walletID=${randomUUID()}`)).status).toBe(404);
    expect((await api('GET', `/api/wallets/transactions?pageSize=0`)).status).toBe(400);
    expect((await api('GET', `/api/wallets/transactions?cursor=${res.body.cursor.next || 'x'}&walletID=${id}`)).status).toBe(400);
  });

  it('answers a retried confirm or void under the same Idempotency-Key with its stored 204, not HOLD_CLOSED', async () => {
    const id = await newWallet();
    await credit(id, 30);
    const confirmed = (await debit(id, 10, { pending: true })).body.data.id;
    const voided = (await debit(id, 10, { pending: true })).body.data.id;
    const confirmKey = `confirm-${unique()}`;
    const voidKey = `void-${unique()}`;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      expect((await api('POST', `/api/wallets/holds/${confirmed}/confirm`, { body: {}, headers: { 'Idempotency-Key': confirmKey } })).status).toBe(
        204,
      );
      expect((await api('POST', `/api/wallets/holds/${voided}/void`, { headers: { 'Idempotency-Key': voidKey } })).status).toBe(204);
    }
    // The same key with another body is a conflict; a new key finds the hold closed.
    expect(
      (await api('POST', `/api/wallets/holds/${confirmed}/confirm`, { body: { amount: 5 }, headers: { 'Idempotency-Key': confirmKey } })).status,
    ).toBe(409);
    const fresh = await api('POST', `/api/wallets/holds/${confirmed}/confirm`, { body: {}, headers: { 'Idempotency-Key': `other-${unique()}` } });
    expect([fresh.status, fresh.body.errorCode]).toEqual([400, 'HOLD_CLOSED']);
    // Settled once each: 10 confirmed out, 10 voided back.
    expect(await main(id)).toBe(20);
  });
});
