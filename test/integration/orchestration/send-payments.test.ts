import { accountId, paymentId } from '../../../areas/payments/ids';
import { api } from '../../support/http';
import { balance, fund } from '../../support/ledger-fixtures';
import { newLedger } from '../../support/ledger';
import { createWorkflow, runInstance, stageHistory } from '../../support/orchestration';
import { isDefined, pollUntil } from '../../support/eventually';
import { installSimulated, simulatedDirectory, suffix } from '../../support/payments';
import { newWallet } from '../../support/wallets';

const ASSET = 'EUR/2';
const payIn = (reference: string, amount: number) => ({
  reference,
  type: 'PAY-IN',
  status: 'SUCCEEDED',
  amount,
  asset: ASSET,
  scheme: 'sepa credit',
  createdAt: '2024-05-01T10:00:00Z',
  destinationAccountReference: 'treasury',
  metadata: { origin: 'bank' },
});

/** Sends to and from payments through the simulated connector, executed by the real worker and Temporal. */
describe('orchestration send with payments', () => {
  const tag = suffix();
  let connectorID: string;
  let decoyID: string; // an older connector of the same provider: `psp` alone would pick it
  let payout: string; // the provider account a send to a payment pays, named in the source's metadata
  const payments = { toAccount: '', toWallet: '' };

  beforeAll(async () => {
    decoyID = await installSimulated(simulatedDirectory({ 'accounts.json': [{ reference: `payout-${tag}`, type: 'EXTERNAL' }] }), '1h');
    const dir = simulatedDirectory({
      'accounts.json': [
        { reference: 'treasury', type: 'INTERNAL' },
        { reference: `payout-${tag}`, type: 'EXTERNAL' },
      ],
      'payments.json': [payIn(`in-a-${tag}`, 1500), payIn(`in-b-${tag}`, 700)],
    });
    connectorID = await installSimulated(dir, '1s');
    payout = accountId(connectorID, `payout-${tag}`);
    payments.toAccount = paymentId(connectorID, `in-a-${tag}`);
    payments.toWallet = paymentId(connectorID, `in-b-${tag}`);
    await pollUntil(async () => ((await api('GET', `/api/payments/payments/${payments.toWallet}`)).status === 200 ? true : undefined), isDefined, {
      timeoutMs: 30_000,
      what: 'fetched payments',
    });
  });
  afterAll(async () => {
    await api('DELETE', `/api/payments/v3/connectors/${connectorID}`);
    await api('DELETE', `/api/payments/v3/connectors/${decoyID}`);
  });

  async function runSend(send: Record<string, unknown>) {
    const workflowID = await createWorkflow([{ send }]);
    const res = await runInstance(workflowID, {}, true);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ terminated: true });
    expect(res.body.data.error).toBeUndefined();
    const stage = (await stageHistory(res.body.data.id, 0)).body.data as any[];
    return { id: res.body.data.id as string, stage, byName: (name: string) => stage.find((e) => e.name === name) };
  }

  /** The initiation ProviderTransfer created settles as a SUCCEEDED transfer to `payout` on the simulator. */
  async function expectSettledTransfer(entry: any, amount: number) {
    expect(entry.input.ProviderTransfer).toEqual({
      connectorID,
      amount,
      asset: ASSET,
      destination: payout,
      waitingValidation: false,
      metadata: { purpose: 'payout' },
    });
    const initiationID = entry.output.ProviderTransfer.data.paymentInitiationID as string;
    const initiation = await pollUntil(
      async () => {
        const pi = (await api('GET', `/api/payments/v3/payment-initiations/${initiationID}`)).body.data;
        return pi?.status === 'PROCESSED' ? pi : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'the initiation to be processed' },
    );
    expect(initiation).toMatchObject({
      connectorID,
      type: 'TRANSFER',
      amount,
      asset: ASSET,
      destinationAccountID: payout,
      metadata: { purpose: 'payout' },
    });
    return initiation;
  }

  it('account -> payment: GetAccount, CreateTransaction to world, then ProviderTransfer to the account named in metadata', async () => {
    const ledger = await newLedger();
    await fund(ledger, 'users:1', 1000, ASSET);
    expect((await api('POST', `/api/ledger/v2/${ledger}/accounts/users:1/metadata`, { body: { formanceAccountID: payout } })).status).toBe(204);
    const { stage, byName } = await runSend({
      source: { account: { id: 'users:1', ledger } },
      destination: { payment: { psp: 'simulated' } },
      amount: { asset: ASSET, amount: 400 },
      metadata: { purpose: 'payout' },
    });
    expect(await balance(ledger, 'users:1', ASSET)).toBe(600n);
    expect(await balance(ledger, 'world', ASSET)).toBe(-600n);
    expect(stage.map((e) => e.name)).toEqual(['GetAccount', 'CreateTransaction', 'findConnector', 'ProviderTransfer']);
    expect(byName('CreateTransaction').input.CreateTransaction.data.postings).toEqual([
      { source: 'users:1', destination: 'world', amount: 400, asset: ASSET },
    ]);
    await expectSettledTransfer(byName('ProviderTransfer'), 400);
  });

  it('wallet -> payment: DebitWallet, then ProviderTransfer to the account named in the wallet metadata', async () => {
    const wallet = await newWallet(`w-${suffix()}`, { formanceAccountID: payout });
    expect((await api('POST', `/api/wallets/wallets/${wallet}/credit`, { body: { amount: { asset: ASSET, amount: 900 } } })).status).toBe(204);
    const { stage, byName } = await runSend({
      source: { wallet: { id: wallet } },
      destination: { payment: { psp: 'simulated' } },
      amount: { asset: ASSET, amount: 250 },
      metadata: { purpose: 'payout' },
    });
    const wallets = (await api('GET', `/api/wallets/wallets/${wallet}`)).body.data;
    expect(wallets.balances.main.assets[ASSET]).toBe(650);
    expect(stage.map((e) => e.name)).toEqual(['GetWallet', 'DebitWallet', 'findConnector', 'ProviderTransfer']);
    await expectSettledTransfer(byName('ProviderTransfer'), 250);
  });

  it('payment -> account: GetPayment, the payment enters the internal ledger, then moves to the account', async () => {
    const ledger = await newLedger();
    const { stage, byName } = await runSend({ source: { payment: { id: payments.toAccount } }, destination: { account: { id: 'bank', ledger } } });
    expect(await balance(ledger, 'bank', ASSET)).toBe(1500n);
    expect(stage.map((e) => e.name)).toEqual(['GetPayment', 'CreateTransaction', 'CreateTransaction', 'CreateTransaction']);
    expect(byName('GetPayment').input.GetPayment).toEqual({ id: payments.toAccount });
    const payment = byName('GetPayment').output.GetPayment.data;
    expect(payment).not.toHaveProperty('amount');
    expect(payment).toMatchObject({
      id: payments.toAccount,
      reference: `in-a-${tag}`,
      connectorID,
      provider: 'SIMULATED',
      type: 'PAY-IN',
      status: 'SUCCEEDED',
      initialAmount: 1500,
      asset: ASSET,
      scheme: 'sepa credit',
      destinationAccountID: accountId(connectorID, 'treasury'),
      metadata: { origin: 'bank' },
    });
    expect(Object.values(payment.metadata).every((v) => typeof v === 'string')).toBe(true);
    expect(payment.adjustments).toEqual([{ status: 'SUCCEEDED', amount: 1500, date: expect.any(String), raw: expect.any(Object), absolute: true }]);
    expect(Number.isNaN(Date.parse(payment.adjustments[0].date))).toBe(false);
    const internal = `payment:${payments.toAccount.replace(/[^a-zA-Z0-9_]/g, '_')}`;
    expect(await balance('orchestration-000-internal', internal, ASSET)).toBe(0n);
  });

  it('payment -> wallet: GetPayment, into the internal ledger, then CreditWallet from world', async () => {
    const wallet = await newWallet();
    const { stage } = await runSend({ source: { payment: { id: payments.toWallet } }, destination: { wallet: { id: wallet } } });
    const read = (await api('GET', `/api/wallets/wallets/${wallet}`)).body.data;
    expect(read.balances.main.assets[ASSET]).toBe(700);
    expect(stage.map((e) => e.name)).toEqual(['GetPayment', 'CreateTransaction', 'GetWallet', 'CreateTransaction', 'CreditWallet']);
  });

  it('payment -> payment is refused at workflow creation with 400 naming the stage', async () => {
    const res = await api('POST', '/api/orchestration/v2/workflows', {
      body: { stages: [{ send: { source: { payment: { id: 'p' } }, destination: { payment: { psp: 'simulated' } } } }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
    expect(res.body.errorMessage).toContain('stages[0].send.destination');
  });
});
