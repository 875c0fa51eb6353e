import { api } from '../../support/http';
import { credit, debit, newWallet } from '../../support/wallets';

/**
 * Found by the fuzzer: the wallets ledger is an ordinary ledger, so a forced revert through the ledger API can move a
 * hold account below zero. A hold never reports a negative amount left, and a closed hold reports none.
 */
describe('hold remaining amount', () => {
  it('is 0 for a closed hold even after its ledger account was forced below zero', async () => {
    const wallet = await newWallet();
    expect((await credit(wallet, 100)).status).toBe(204);
    const hold = await debit(wallet, 30, { pending: true });
    expect(hold.status).toBe(201);
    const holdId = hold.body.data.id;
    expect((await api('POST', `/api/wallets/holds/${holdId}/void`)).status).toBe(204);

    const account = `wallets:holds:${holdId}`;
    const txs = await api('GET', `/api/ledger/v2/wallets/transactions?destination=${encodeURIComponent(account)}`);
    expect(txs.status).toBe(200);
    const holdCreation = txs.body.cursor.data[0];
    const forced = await api('POST', `/api/ledger/v2/wallets/transactions/${holdCreation.id}/revert?force=true`);
    expect(forced.status).toBe(201);
    const ledgerAccount = await api('GET', `/api/ledger/v2/wallets/accounts/${encodeURIComponent(account)}`);
    expect(BigInt(ledgerAccount.body.data.volumes['USD/2'].balance)).toBe(-30n);

    const read = await api('GET', `/api/wallets/holds/${holdId}`);
    expect(read.body.data).toMatchObject({ id: holdId, originalAmount: 30, remaining: 0, closed: true });
    const list = await api('GET', `/api/wallets/holds?walletID=${wallet}`);
    expect(list.body.cursor.data.map((h: { remaining: number }) => h.remaining)).toEqual([0]);

    // The overdraft was this test's doing: put it back, so the shared wallets ledger holds no negative account for the
    // tests that check every account of it (wallets/write-statements, wallets/concurrency).
    const restore = { postings: [{ source: 'world', destination: account, amount: 30, asset: 'USD/2' }] };
    expect((await api('POST', '/api/ledger/v2/wallets/transactions', { body: restore })).status).toBe(200);
  });
});
