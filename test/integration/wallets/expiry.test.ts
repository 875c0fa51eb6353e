import { api } from '../../support/http';
import { pollUntil } from '../../support/eventually';
import { credit, debit, mainBalance, newWallet, unique } from '../../support/wallets';

/**
 * Balance expiry on every wallet path: an expired balance's funds are out of reach of debits (named or `*`), of holds
 * and of credits drawing from it; a hold taken while its balance was live is still confirmed (Formance), and what it
 * gives back lands in the expired balance, where it stays out of reach. See docs/wallets.md.
 */
const PAST = '2020-01-01T00:00:00Z';

const createBalance = async (wallet: string, name: string, expiresAt?: string, priority?: number) => {
  const res = await api('POST', `/api/wallets/wallets/${wallet}/balances`, {
    body: { name, ...(expiresAt ? { expiresAt } : {}), ...(priority ? { priority } : {}) },
  });
  expect(res.status).toBe(201);
};

const assetsOf = async (wallet: string): Promise<Record<string, number>> => {
  const balances = (await api('GET', `/api/wallets/wallets/${wallet}`)).body.data.balances as Record<string, { assets: Record<string, number> }>;
  return Object.fromEntries(Object.entries(balances).map(([name, b]) => [name, b.assets['USD/2'] ?? 0]));
};

const summaryOf = async (wallet: string) => (await api('GET', `/api/wallets/wallets/${wallet}/summary`)).body.data;

const holdsOf = async (wallet: string) => (await api('GET', `/api/wallets/holds?walletID=${wallet}`)).body.cursor.data as Array<{ id: string }>;

const ledgerBalance = async (address: string): Promise<number> => {
  const res = await api('GET', `/api/ledger/v2/wallets/accounts/${encodeURIComponent(address)}?expand=volumes`);
  return Number(res.body.data.volumes?.['USD/2']?.balance ?? 0);
};

/** A wallet with `main` (50) and an expired balance `b3` (30, credited when it had already expired). */
async function walletWithExpiredBalance(): Promise<string> {
  const wallet = await newWallet();
  await createBalance(wallet, 'b3', PAST);
  // Crediting an expired balance is allowed (as in Formance): the funds land expired.
  expect((await credit(wallet, 30, { balance: 'b3' })).status).toBe(204);
  expect((await credit(wallet, 50)).status).toBe(204);
  expect(await summaryOf(wallet)).toMatchObject({ availableFunds: { 'USD/2': 50 }, expiredFunds: { 'USD/2': 30 } });
  return wallet;
}

describe('wallet balance expiry', () => {
  it('a debit naming only an expired balance is refused and draws nothing from it', async () => {
    const wallet = await walletWithExpiredBalance();
    const refused = await debit(wallet, 10, { balances: ['b3'] });
    expect(refused.status).toBe(400);
    expect(refused.body.errorCode).toBe('INSUFFICIENT_FUND');
    expect(refused.body.errorMessage).toContain('b3');
    // Named next to a live balance, the expired one is left out: the live one alone pays, up to what it holds.
    expect((await debit(wallet, 40, { balances: ['b3', 'main'] })).status).toBe(204);
    expect((await debit(wallet, 11, { balances: ['b3', 'main'] })).body.errorCode).toBe('INSUFFICIENT_FUND');
    expect(await assetsOf(wallet)).toEqual({ main: 10, b3: 30 });
  });

  it('a debit over every balance (`*`) skips expired balances', async () => {
    const wallet = await walletWithExpiredBalance();
    await createBalance(wallet, 'gift', undefined, 5);
    expect((await credit(wallet, 5, { balance: 'gift' })).status).toBe(204);
    // 55 live (gift 5, main 50): the expired 30 would make 85.
    expect((await debit(wallet, 56, { balances: ['*'] })).body.errorCode).toBe('INSUFFICIENT_FUND');
    expect((await debit(wallet, 55, { balances: ['*'] })).status).toBe(204);
    expect(await assetsOf(wallet)).toEqual({ main: 0, gift: 0, b3: 30 });
  });

  it('a debit by priority (`*`) passes over an expired balance that would come first, and draws from the next live one', async () => {
    const wallet = await newWallet();
    // `top` would be drawn first twice over: it has an expiry (those come first) and the highest priority.
    await createBalance(wallet, 'top', PAST, 10);
    await createBalance(wallet, 'gift', undefined, 5);
    expect((await credit(wallet, 30, { balance: 'top' })).status).toBe(204);
    expect((await credit(wallet, 5, { balance: 'gift' })).status).toBe(204);
    expect((await credit(wallet, 50)).status).toBe(204);
    expect((await debit(wallet, 3, { balances: ['*'] })).status).toBe(204);
    expect(await assetsOf(wallet)).toEqual({ main: 50, gift: 2, top: 30 });
    // Past `gift`, `main` pays; a hold by priority takes the same path.
    expect((await debit(wallet, 4, { balances: ['*'] })).status).toBe(204);
    expect(await assetsOf(wallet)).toEqual({ main: 48, gift: 0, top: 30 });
    const hold = await debit(wallet, 8, { pending: true, balances: ['*'] });
    expect(hold.status).toBe(201);
    expect(await assetsOf(wallet)).toEqual({ main: 40, gift: 0, top: 30 });
  });

  it('a hold cannot be taken from an expired balance, named or through `*`', async () => {
    const wallet = await walletWithExpiredBalance();
    const named = await debit(wallet, 10, { pending: true, balances: ['b3'] });
    expect(named.status).toBe(400);
    expect(named.body.errorCode).toBe('INSUFFICIENT_FUND');
    expect((await debit(wallet, 51, { pending: true, balances: ['*'] })).body.errorCode).toBe('INSUFFICIENT_FUND');
    expect(await holdsOf(wallet)).toEqual([]);
    // A hold over `*` takes from the live balances only.
    const hold = await debit(wallet, 50, { pending: true, balances: ['*'] });
    expect(hold.status).toBe(201);
    expect(await assetsOf(wallet)).toEqual({ main: 0, b3: 30 });
    expect(await ledgerBalance(`wallets:holds:${hold.body.data.id}`)).toBe(50);
  });

  it("a credit cannot draw from another wallet's expired balance", async () => {
    const source = await walletWithExpiredBalance();
    const target = await newWallet();
    const refused = await credit(target, 10, { sources: [{ type: 'WALLET', identifier: source, balance: 'b3' }] });
    expect(refused.status).toBe(400);
    expect(refused.body.errorCode).toBe('INSUFFICIENT_FUND');
    expect(refused.body.errorMessage).toContain('expired');
    expect(await assetsOf(source)).toEqual({ main: 50, b3: 30 });
    expect(await mainBalance(target)).toBe(0);
    // Its live balance still pays.
    expect((await credit(target, 10, { sources: [{ type: 'WALLET', identifier: source, balance: 'main' }] })).status).toBe(204);
    expect(await mainBalance(target)).toBe(10);
  });

  describe('holds taken before their balance expired', () => {
    let wallet: string;
    let toConfirm: string;
    let toVoid: string;
    const merchant = `merchants:${unique()}`;
    const key = `expiry-${unique()}`;
    const keyedDebit = () =>
      api('POST', `/api/wallets/wallets/${wallet}/debit`, {
        body: { amount: { asset: 'USD/2', amount: 5 }, balances: ['soon'] },
        headers: { 'Idempotency-Key': key },
      });

    beforeAll(async () => {
      wallet = await newWallet();
      // Expires a few seconds from now: long enough to take both holds first (their 201s are asserted).
      await createBalance(wallet, 'soon', new Date(Date.now() + 5_000).toISOString());
      expect((await credit(wallet, 105, { balance: 'soon' })).status).toBe(204);
      expect((await keyedDebit()).status).toBe(204);
      const a = await debit(wallet, 60, { pending: true, balances: ['soon'], destination: { type: 'ACCOUNT', identifier: merchant } });
      const b = await debit(wallet, 30, { pending: true, balances: ['soon'] });
      expect([a.status, b.status]).toEqual([201, 201]);
      [toConfirm, toVoid] = [a.body.data.id, b.body.data.id];
      // Wait for the expiry as the wallet reports it: the 10 left in `soon` move to expired funds.
      await pollUntil(
        () => summaryOf(wallet),
        (s) => s.expiredFunds['USD/2'] === 10,
        { what: 'balance "soon" to expire' },
      );
      expect((await debit(wallet, 1, { balances: ['soon'] })).body.errorCode).toBe('INSUFFICIENT_FUND');
    });

    it('a keyed debit replayed once its balance expired answers its first result, and draws nothing more', async () => {
      const replay = await keyedDebit();
      expect(replay.status).toBe(204);
      expect((await summaryOf(wallet)).expiredFunds).toEqual({ 'USD/2': 10 });
      // The same body under a new key is a new debit, refused.
      const fresh = await api('POST', `/api/wallets/wallets/${wallet}/debit`, {
        body: { amount: { asset: 'USD/2', amount: 5 }, balances: ['soon'] },
        headers: { 'Idempotency-Key': `${key}-2` },
      });
      expect(fresh.body.errorCode).toBe('INSUFFICIENT_FUND');
    });

    it('confirming one still pays its destination; the rest of a final confirm goes back to the expired balance', async () => {
      expect((await api('POST', `/api/wallets/holds/${toConfirm}/confirm`, { body: { amount: 20, final: true } })).status).toBe(204);
      expect(await ledgerBalance(merchant)).toBe(20);
      expect((await api('GET', `/api/wallets/holds/${toConfirm}`)).body.data).toMatchObject({ remaining: 0, closed: true });
      // The 40 given back are in `soon` again, and expired: no debit can take them.
      expect((await summaryOf(wallet)).expiredFunds).toEqual({ 'USD/2': 50 });
      expect((await debit(wallet, 1, { balances: ['*'] })).body.errorCode).toBe('INSUFFICIENT_FUND');
      expect((await debit(wallet, 1, { balances: ['soon'] })).body.errorCode).toBe('INSUFFICIENT_FUND');
    });

    it('voiding one gives its funds back to the expired balance, still out of reach', async () => {
      const before = (await summaryOf(wallet)).expiredFunds['USD/2'];
      expect((await api('POST', `/api/wallets/holds/${toVoid}/void`)).status).toBe(204);
      const summary = await summaryOf(wallet);
      expect(summary.expiredFunds['USD/2']).toBe(before + 30);
      expect(summary.availableFunds['USD/2'] ?? 0).toBe(0);
      expect((await debit(wallet, 1, { pending: true, balances: ['soon'] })).body.errorCode).toBe('INSUFFICIENT_FUND');
      expect(await assetsOf(wallet)).toEqual({ main: 0, soon: before + 30 });
    });
  });
});
