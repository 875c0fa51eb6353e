import { api } from '../../support/http';
import { newLedger, postTransaction, posting } from '../../support/ledger';
import { createWorkflow, runInstance } from '../../support/orchestration';
import { credit, debit, mainBalance, newWallet, unique } from '../../support/wallets';

/**
 * An empty value is an absent one: a query parameter sent empty (`name=`) on any route, and the balance names of wallet
 * movements. Formance's CLI (fctl) sends the flags it was not given that way (test/integration/hardening/fctl-requests).
 */
describe('empty values mean absent', () => {
  it('cursor= (and pageSize=) on a ledger volumes list is the first page', async () => {
    const ledger = await newLedger('empty');
    for (const to of ['users:1', 'users:2', 'users:3'])
      expect((await postTransaction(ledger, { postings: [posting('world', to, 10)] })).status).toBe(200);
    const plain = await api('GET', `/api/ledger/v2/${ledger}/volumes?pageSize=2`);
    const empty = await api('GET', `/api/ledger/v2/${ledger}/volumes?cursor=&pageSize=2`);
    expect(empty.status).toBe(200);
    expect(empty.body.cursor.data).toEqual(plain.body.cursor.data);
    expect(empty.body.cursor.data.map((v: { account: string }) => v.account)).toEqual(['users:1', 'users:2']);
    expect(empty.body.cursor.hasMore).toBe(true);
    // The next page's cursor still pages, and every parameter empty is the default list.
    const next = await api('GET', `/api/ledger/v2/${ledger}/volumes?cursor=${empty.body.cursor.next}`);
    expect(next.body.cursor.data.map((v: { account: string }) => v.account)).toEqual(['users:3', 'world']);
    // Go's zero time, how the Go SDK sends an unset time, is absent too (here it would bound the window to year 1).
    const defaults = await api('GET', `/api/ledger/v2/${ledger}/volumes?cursor=&pageSize=&address=&endTime=0001-01-01T00:00:00Z`);
    expect(defaults.status).toBe(200);
    expect(defaults.body.cursor).toMatchObject({ pageSize: 15, hasMore: false });
    expect(defaults.body.cursor.data).toHaveLength(4);
  });

  it("workflowID= on an orchestration instance list is every workflow's instances", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const run = await runInstance(await createWorkflow([{ noop: {} }]), {}, true);
      expect(run.body.data.terminated).toBe(true);
      ids.push(run.body.data.id);
    }
    const listed = await api('GET', '/api/orchestration/v2/instances?workflowID=&pageSize=1000');
    expect(listed.status).toBe(200);
    expect(listed.body.cursor.data.map((i: { id: string }) => i.id)).toEqual(expect.arrayContaining(ids));
    // `running=false`, which fctl sends with it, is no filter either (Formance): terminated instances are listed.
    const fctl = await api('GET', '/api/orchestration/instances?running=false&workflowID=');
    expect(fctl.status).toBe(200);
    expect(fctl.body.data.slice(0, 2).map((i: { id: string }) => i.id)).toEqual([ids[1], ids[0]]);
    // A workflowID that names nothing still lists nothing: only the empty value is absent.
    expect((await api('GET', '/api/orchestration/v2/instances?workflowID=nope')).body.cursor.data).toEqual([]);
  });

  it('"balance": "" on a wallet credit is main, and [""] on a debit draws from main', async () => {
    const wallet = await newWallet();
    expect((await credit(wallet, 100, { balance: '' })).status).toBe(204);
    expect(await mainBalance(wallet)).toBe(100);
    expect((await debit(wallet, 30, { balances: [''] })).status).toBe(204);
    expect(await mainBalance(wallet)).toBe(70);
    // A WALLET subject's empty balance is main too.
    const other = await newWallet();
    expect((await credit(other, 5, { sources: [{ type: 'WALLET', identifier: wallet, balance: '' }] })).status).toBe(204);
    expect(await mainBalance(wallet)).toBe(65);
    // A name that is not empty must still exist.
    expect((await credit(wallet, 1, { balance: 'nope' })).status).toBe(400);
  });

  it('a map filter keeps its empty value: metadata[key]= matches the empty value', async () => {
    const key = `k${unique()}`;
    const blank = await newWallet(`w-${unique()}`, { [key]: '' });
    await newWallet(`w-${unique()}`, { [key]: 'set' });
    const listed = await api('GET', `/api/wallets/wallets?metadata[${key}]=`);
    expect(listed.status).toBe(200);
    expect(listed.body.cursor.data.map((w: { id: string }) => w.id)).toEqual([blank]);
  });
});
