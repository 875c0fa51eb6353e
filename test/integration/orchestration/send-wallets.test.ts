import { balance, fund } from '../../support/ledger-fixtures';
import { newLedger } from '../../support/ledger';
import { createWorkflow, runInstance, stageHistory } from '../../support/orchestration';
import { credit, mainBalance, newWallet, unique } from '../../support/wallets';

const names = async (id: string) => (await stageHistory(id, 0)).body.data.map((e: { name: string }) => e.name);

async function runSend(source: unknown, destination: unknown, amount = 40) {
  const workflowID = await createWorkflow([{ send: { source, destination, amount: { asset: 'USD/2', amount } } }]);
  const res = await runInstance(workflowID, {}, true);
  expect(res.body.data).toMatchObject({ terminated: true });
  expect(res.body.data.error).toBeUndefined();
  return res.body.data.id as string;
}

describe('orchestration send with wallets', () => {
  it('account -> wallet across ledgers: CreateTransaction to world, then CreditWallet', async () => {
    const ledger = await newLedger();
    await fund(ledger, 'users:1', 100);
    const wallet = await newWallet();
    const id = await runSend({ account: { id: 'users:1', ledger } }, { wallet: { id: wallet } });
    expect(await balance(ledger, 'users:1')).toBe(60n);
    expect(await mainBalance(wallet)).toBe(40);
    expect(await names(id)).toEqual(['GetWallet', 'CreateTransaction', 'CreditWallet']);
  });

  it('wallet -> account across ledgers: DebitWallet, then CreateTransaction from world', async () => {
    const ledger = await newLedger();
    const wallet = await newWallet();
    await credit(wallet, 100);
    const id = await runSend({ wallet: { id: wallet } }, { account: { id: 'bank', ledger } });
    expect(await mainBalance(wallet)).toBe(60);
    expect(await balance(ledger, 'bank')).toBe(40n);
    const stage = (await stageHistory(id, 0)).body.data;
    expect(stage.map((e: { name: string }) => e.name)).toEqual(['GetWallet', 'DebitWallet', 'CreateTransaction']);
    expect(stage[0].output.GetWallet.data).toMatchObject({ id: wallet, ledger: 'wallets', balances: { main: { assets: { 'USD/2': 100 } } } });
  });

  it('wallet -> wallet on the same ledger by name: ListWallets, GetWallet, CreditWallet from the source wallet', async () => {
    const from = `from-${unique()}`;
    const source = await newWallet(from);
    const destination = await newWallet();
    await credit(source, 100);
    const id = await runSend({ wallet: { name: from } }, { wallet: { id: destination } }, 25);
    expect(await mainBalance(source)).toBe(75);
    expect(await mainBalance(destination)).toBe(25);
    const stage = (await stageHistory(id, 0)).body.data;
    expect(stage.map((e: { name: string }) => e.name)).toEqual(['ListWallets', 'GetWallet', 'CreditWallet']);
    expect(stage[2].input.CreditWallet).toMatchObject({
      id: destination,
      data: { sources: [{ type: 'WALLET', identifier: source, balance: 'main' }] },
    });
  });

  it('account -> wallet on the wallets ledger: one CreditWallet from the account', async () => {
    const account = `users:${unique()}`;
    await fund('wallets', account, 30);
    const wallet = await newWallet();
    const id = await runSend({ account: { id: account, ledger: 'wallets' } }, { wallet: { id: wallet } }, 30);
    expect(await mainBalance(wallet)).toBe(30);
    expect(await balance('wallets', account)).toBe(0n);
    expect(await names(id)).toEqual(['GetWallet', 'CreditWallet']);
  });
});
