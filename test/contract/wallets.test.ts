import { randomBytes } from 'node:crypto';
import { sdkClient } from './sdk-client';

/**
 * Every method of Formance's `wallets.v1` through the official SDK. The SDK validates each response against
 * Formance's schemas, so a call that resolves proves the wire shape; the assertions check the values.
 */
const sdk = sdkClient();
const wallets = sdk.wallets.v1;
const suffix = () => randomBytes(4).toString('hex');
const usd = (amount: number) => ({ asset: 'USD/2', amount: BigInt(amount) });

async function fundedWallet(amount = 1000): Promise<string> {
  const created = await wallets.createWallet({ createWalletRequest: { name: `contract-${suffix()}`, metadata: { suite: 'contract' } } });
  const id = created.createWalletResponse!.data.id;
  await wallets.creditWallet({ id, creditWalletRequest: { amount: usd(amount), metadata: {} } });
  return id;
}

async function pendingHold(walletID: string, amount = 300): Promise<string> {
  const debited = await wallets.debitWallet({
    id: walletID,
    debitWalletRequest: { amount: usd(amount), pending: true, metadata: { purpose: 'hold' } },
  });
  return debited.debitWalletResponse!.data.id;
}

describe('contract: wallets.v1 through the Formance SDK', () => {
  test('getServerInfoWallets', async () => {
    const info = await wallets.getServerInfoWallets();
    expect(info.statusCode).toBe(200);
    expect(typeof info.serverInfo!.version).toBe('string');
  });

  test('createWallet, getWallet, updateWallet, listWallets', async () => {
    const name = `contract-${suffix()}`;
    const created = await wallets.createWallet({ createWalletRequest: { name, metadata: { team: 'a' } }, idempotencyKey: suffix() });
    expect(created.statusCode).toBe(201);
    const id = created.createWalletResponse!.data.id;
    await wallets.updateWallet({ id, requestBody: { metadata: { team: 'b' } } });
    const read = await wallets.getWallet({ id });
    expect(read.getWalletResponse!.data).toMatchObject({ id, name, metadata: { team: 'b' } });
    const listed = await wallets.listWallets({ name, metadata: { team: 'b' }, pageSize: 5, expand: 'balances' });
    expect(listed.listWalletsResponse!.cursor.data.map((w) => w.id)).toEqual([id]);
  });

  test('creditWallet and debitWallet move the main balance', async () => {
    const id = await fundedWallet(1000);
    await wallets.debitWallet({ id, debitWalletRequest: { amount: usd(250), metadata: {}, description: 'contract debit' } });
    const read = await wallets.getWallet({ id });
    expect(read.getWalletResponse!.data.balances.main.assets['USD/2']).toBe(750n);
  });

  test('getWalletSummary', async () => {
    const id = await fundedWallet(1000);
    await pendingHold(id, 300);
    const summary = (await wallets.getWalletSummary({ id })).getWalletSummaryResponse!.data;
    expect(summary.availableFunds['USD/2']).toBe(700n);
    expect(summary.holdFunds['USD/2']).toBe(300n);
    expect(summary.balances.map((b) => b.name)).toContain('main');
  });

  test('createBalance, getBalance, listBalances', async () => {
    const id = await fundedWallet(100);
    const created = await wallets.createBalance({ id, balance: { name: 'savings', priority: 2n } });
    expect(created.statusCode).toBe(201);
    expect(created.createBalanceResponse!.data).toMatchObject({ name: 'savings', priority: 2n });
    const read = await wallets.getBalance({ id, balanceName: 'main' });
    expect(read.getBalanceResponse!.data).toMatchObject({ name: 'main', assets: { 'USD/2': 100n } });
    const listed = await wallets.listBalances({ id });
    expect(listed.listBalancesResponse!.cursor.data.map((b) => b.name).sort()).toEqual(['main', 'savings']);
  });

  test('getHolds and getHold: a pending debit holds its asset', async () => {
    const walletID = await fundedWallet(1000);
    const holdId = await pendingHold(walletID, 300);
    const hold = (await wallets.getHold({ holdID: holdId })).getHoldResponse!.data;
    expect(hold).toMatchObject({ id: holdId, walletID, asset: 'USD/2', metadata: { purpose: 'hold' } });
    expect(hold.remaining).toBe(300n);
    const holds = await wallets.getHolds({ walletID, pageSize: 10 });
    expect(holds.getHoldsResponse!.cursor.data.map((h) => h.id)).toEqual([holdId]);
  });

  test('confirmHold settles part of a hold', async () => {
    const walletID = await fundedWallet(1000);
    const holdId = await pendingHold(walletID, 300);
    const confirmed = await wallets.confirmHold({ holdId, confirmHoldRequest: { amount: 100n, final: true } });
    expect(confirmed.statusCode).toBe(204);
    const read = await wallets.getWallet({ id: walletID });
    expect(read.getWalletResponse!.data.balances.main.assets['USD/2']).toBe(900n);
  });

  test('voidHold gives the held funds back', async () => {
    const walletID = await fundedWallet(1000);
    const holdId = await pendingHold(walletID, 300);
    expect((await wallets.voidHold({ holdId })).statusCode).toBe(204);
    const summary = (await wallets.getWalletSummary({ id: walletID })).getWalletSummaryResponse!.data;
    expect(summary.availableFunds['USD/2']).toBe(1000n);
  });

  test("getTransactions lists the wallet's ledger transactions", async () => {
    const walletID = await fundedWallet(500);
    const listed = await wallets.getTransactions({ walletID, pageSize: 10 });
    const data = listed.getTransactionsResponse!.cursor.data;
    expect(data.length).toBe(1);
    expect(data[0].postings[0]).toMatchObject({ asset: 'USD/2', amount: 500n });
  });
});
