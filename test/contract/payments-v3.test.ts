import { isDefined, pollUntil } from '../support/eventually';
import { simulatedDirectory, suffix } from '../support/payments';
import { newBankAccount, settled, v3 } from './payments-v3-support';

/**
 * The data side of Formance's `payments.v3` through the official SDK: accounts, balances and payments (fetched from a
 * simulated connector, and recorded by hand), bank accounts, pools and payment initiations. One test per SDK method;
 * connectors are covered by payments-v3-connectors.test.ts, payment service users by payments-v3-users.test.ts.
 */
// The SDK reads and writes amounts through JS numbers (beyond 2^53 it sends an exponent and reads a rounded value), so
// the amounts here stay exact as doubles; wider ones are covered by the HTTP tests.
const big = 9007199254740993n - 1n;

describe('contract: payments.v3 data through the Formance SDK', () => {
  let connectorID: string;
  let mainID: string;
  let paymentID: string;
  beforeAll(async () => {
    const directory = simulatedDirectory({
      'accounts.json': [
        { reference: 'main', name: 'Main', defaultAsset: 'EUR/2' },
        { reference: 'ext', type: 'EXTERNAL' },
      ],
      'balances.json': [
        { accountReference: 'main', asset: 'EUR/2', amount: big },
        { accountReference: 'main', asset: 'USD/2', amount: 5 },
      ],
      'payments.json': [
        {
          reference: 'p1',
          type: 'PAY-IN',
          status: 'SUCCEEDED',
          amount: 1500,
          asset: 'EUR/2',
          createdAt: '2026-01-02T03:04:05.000Z',
          destinationAccountReference: 'main',
        },
      ],
    });
    const res = await v3.installConnector({
      connector: 'simulated',
      v3ConnectorConfig: { provider: 'Dummypay', name: `sdk-${suffix()}`, directory, pollingPeriod: '1h' },
    });
    connectorID = res.v3InstallConnectorResponse!.data;
    const payments = await pollUntil(
      async () => {
        const data = (await v3.listPayments({ query: { $match: { connectorID } } })).v3PaymentsCursorResponse!.cursor.data;
        return data.length ? data : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'fetched payments' },
    );
    paymentID = payments[0].id;
    mainID = payments[0].destinationAccountID!;
  });
  afterAll(async () => {
    await v3.uninstallConnector({ connectorID });
  });

  test('listAccounts', async () => {
    const cursor = (await v3.listAccounts({ pageSize: 10, query: { $match: { connectorID } } })).v3AccountsCursorResponse!.cursor;
    expect(cursor.data.map((a) => a.reference).sort()).toEqual(['ext', 'main']);
    expect(cursor.data.find((a) => a.reference === 'ext')).toMatchObject({ type: 'EXTERNAL', connectorID, provider: 'SIMULATED' });
    const page = (await v3.listAccounts({ pageSize: 1, query: { $match: { connectorID } } })).v3AccountsCursorResponse!.cursor;
    expect(page.hasMore).toBe(true);
    const next = (await v3.listAccounts({ cursor: page.next })).v3AccountsCursorResponse!.cursor;
    expect(next.data).toHaveLength(1);
    expect(next.data[0].id).not.toBe(page.data[0].id);
  });

  test('getAccount', async () => {
    const account = (await v3.getAccount({ accountID: mainID })).v3GetAccountResponse!.data;
    expect(account).toMatchObject({ id: mainID, reference: 'main', name: 'Main', defaultAsset: 'EUR/2', type: 'INTERNAL', connectorID });
    expect(account.createdAt).toBeInstanceOf(Date);
  });

  test('createAccount', async () => {
    const res = await v3.createAccount({
      connectorID,
      reference: 'manual-1',
      accountName: 'Recorded',
      type: 'INTERNAL',
      createdAt: new Date('2026-02-01T00:00:00Z'),
      defaultAsset: 'USD/2',
      metadata: { k: 'v' },
    });
    expect(res.statusCode).toBe(201);
    const account = res.v3CreateAccountResponse!.data;
    expect(account).toMatchObject({ reference: 'manual-1', name: 'Recorded', connectorID, metadata: { k: 'v' } });
    expect((await v3.getAccount({ accountID: account.id })).v3GetAccountResponse!.data.createdAt).toEqual(new Date('2026-02-01T00:00:00Z'));
  });

  test('getAccountBalances', async () => {
    const balances = await pollUntil(
      async () => {
        const data = (await v3.getAccountBalances({ accountID: mainID })).v3BalancesCursorResponse!.cursor.data;
        return data.length === 2 ? data : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'balances' },
    );
    expect(balances.map((b) => [b.asset, b.balance])).toEqual([
      ['EUR/2', big],
      ['USD/2', 5n],
    ]);
    const usd = (await v3.getAccountBalances({ accountID: mainID, asset: 'USD/2' })).v3BalancesCursorResponse!.cursor.data;
    expect(usd).toHaveLength(1);
    expect(usd[0].lastUpdatedAt).toBeInstanceOf(Date);
  });

  test('listPayments', async () => {
    const data = (await v3.listPayments({ pageSize: 5, query: { $and: [{ $match: { connectorID } }, { $match: { reference: 'p1' } }] } }))
      .v3PaymentsCursorResponse!.cursor.data;
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({
      id: paymentID,
      amount: 1500n,
      initialAmount: 1500n,
      type: 'PAY-IN',
      status: 'SUCCEEDED',
      asset: 'EUR/2',
      sourceAccountID: null,
    });
    expect(data[0].adjustments![0].id).toEqual(expect.any(String));
  });

  test('getPayment', async () => {
    const payment = (await v3.getPayment({ paymentID })).v3GetPaymentResponse!.data;
    expect(payment).toMatchObject({ id: paymentID, reference: 'p1', connectorID, destinationAccountID: mainID, provider: 'SIMULATED' });
    expect(payment.createdAt).toEqual(new Date('2026-01-02T03:04:05.000Z'));
    expect(payment.adjustments).toHaveLength(1);
  });

  test('createPayment', async () => {
    const res = await v3.createPayment({
      connectorID,
      reference: 'manual-p',
      type: 'TRANSFER',
      scheme: 'other',
      asset: 'EUR/2',
      amount: big,
      initialAmount: big,
      createdAt: new Date('2026-03-01T00:00:00Z'),
      destinationAccountID: mainID,
      metadata: { origin: 'sdk' },
      adjustments: [
        { reference: 'a2', createdAt: new Date('2026-03-01T00:05:00Z'), status: 'SUCCEEDED' },
        { reference: 'a1', createdAt: new Date('2026-03-01T00:00:00Z'), status: 'PENDING' },
      ],
    });
    expect(res.statusCode).toBe(201);
    const payment = res.v3CreatePaymentResponse!.data;
    expect(payment).toMatchObject({
      reference: 'manual-p',
      amount: big,
      status: 'SUCCEEDED',
      destinationAccountID: mainID,
      metadata: { origin: 'sdk' },
    });
    expect(payment.adjustments!.map((a) => a.status)).toEqual(['SUCCEEDED', 'PENDING']);
  });

  test('updatePaymentMetadata', async () => {
    const res = await v3.updatePaymentMetadata({ paymentID, v3UpdatePaymentMetadataRequest: { metadata: { team: 'ops' } } });
    expect(res.statusCode).toBe(204);
    expect((await v3.getPayment({ paymentID })).v3GetPaymentResponse!.data.metadata).toMatchObject({ team: 'ops' });
  });

  test('createBankAccount', async () => {
    const res = await v3.createBankAccount({ name: 'sdk', accountNumber: '12345678901', country: 'FR' });
    expect(res.statusCode).toBe(201);
    expect(res.v3CreateBankAccountResponse!.data).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('listBankAccounts', async () => {
    const id = await newBankAccount();
    const cursor = (await v3.listBankAccounts({ pageSize: 100 })).v3BankAccountsCursorResponse!.cursor;
    expect(cursor.data.find((b) => b.id === id)).toMatchObject({ iban: 'FR76*******************0189', metadata: { team: 'ops' } });
  });

  test('getBankAccount', async () => {
    const id = await newBankAccount('read me');
    const bankAccount = (await v3.getBankAccount({ bankAccountID: id })).v3GetBankAccountResponse!.data;
    expect(bankAccount).toMatchObject({ id, name: 'read me', country: 'FR', swiftBicCode: 'BNPAFRPP', relatedAccounts: [] });
    expect(bankAccount.createdAt).toBeInstanceOf(Date);
  });

  test('updateBankAccountMetadata', async () => {
    const id = await newBankAccount();
    const res = await v3.updateBankAccountMetadata({ bankAccountID: id, v3UpdateBankAccountMetadataRequest: { metadata: { tier: 'gold' } } });
    expect(res.statusCode).toBe(204);
    expect((await v3.getBankAccount({ bankAccountID: id })).v3GetBankAccountResponse!.data.metadata).toEqual({ team: 'ops', tier: 'gold' });
  });

  test('forwardBankAccount', async () => {
    const id = await newBankAccount();
    const res = await v3.forwardBankAccount({ bankAccountID: id, v3ForwardBankAccountRequest: { connectorID } });
    expect(res.statusCode).toBe(202);
    const task = await settled(res.v3ForwardBankAccountResponse!.data.taskID);
    expect(task).toMatchObject({ status: 'SUCCEEDED', connectorID, createdObjectID: expect.any(String) });
    const related = (await v3.getBankAccount({ bankAccountID: id })).v3GetBankAccountResponse!.data.relatedAccounts!;
    expect(related.map((r) => r.accountID)).toEqual([task.createdObjectID]);
    const again = await v3.forwardBankAccount({ bankAccountID: id, v3ForwardBankAccountRequest: { connectorID } });
    expect(again.v3ForwardBankAccountResponse!.data.taskID).toBe(task.id);
  });

  const newPool = async (accountIDs = [mainID]) => (await v3.createPool({ name: `pool-${suffix()}`, accountIDs })).v3CreatePoolResponse!.data;

  test('createPool', async () => {
    const res = await v3.createPool({ name: `pool-${suffix()}`, accountIDs: [mainID] });
    expect(res.statusCode).toBe(201);
    const dynamic = await v3.createPool({ name: `pool-${suffix()}`, query: { $match: { connectorID } } });
    const pool = (await v3.getPool({ poolID: dynamic.v3CreatePoolResponse!.data })).v3GetPoolResponse!.data;
    expect(pool).toMatchObject({ type: 'DYNAMIC', query: { $match: { connectorID } } });
    expect(pool.poolAccounts).toContain(mainID);
  });

  test('listPools', async () => {
    const id = await newPool();
    const data = (await v3.listPools({ pageSize: 100 })).v3PoolsCursorResponse!.cursor.data;
    expect(data.find((p) => p.id === id)).toMatchObject({ type: 'STATIC', poolAccounts: [mainID] });
  });

  test('getPool', async () => {
    const id = await newPool();
    const pool = (await v3.getPool({ poolID: id })).v3GetPoolResponse!.data;
    expect(pool).toMatchObject({ id, type: 'STATIC', poolAccounts: [mainID] });
    expect(pool.createdAt).toBeInstanceOf(Date);
  });

  test('deletePool', async () => {
    const id = await newPool();
    expect((await v3.deletePool({ poolID: id })).statusCode).toBe(204);
    await expect(v3.getPool({ poolID: id })).rejects.toMatchObject({ statusCode: 404 });
  });

  test('addAccountToPool', async () => {
    const id = await newPool([]);
    expect((await v3.addAccountToPool({ poolID: id, accountID: mainID })).statusCode).toBe(204);
    expect((await v3.getPool({ poolID: id })).v3GetPoolResponse!.data.poolAccounts).toEqual([mainID]);
  });

  test('removeAccountFromPool', async () => {
    const id = await newPool();
    expect((await v3.removeAccountFromPool({ poolID: id, accountID: mainID })).statusCode).toBe(204);
    expect((await v3.getPool({ poolID: id })).v3GetPoolResponse!.data.poolAccounts).toEqual([]);
  });

  const mainBalances = () =>
    pollUntil(
      async () => {
        const data = (await v3.getAccountBalances({ accountID: mainID })).v3BalancesCursorResponse!.cursor.data;
        return data.length === 2 ? data : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'balances' },
    );

  test('getPoolBalances', async () => {
    await mainBalances();
    const id = await newPool();
    const balances = (await v3.getPoolBalances({ poolID: id, at: new Date() })).v3PoolBalancesResponse!.data;
    expect(balances).toEqual([
      { asset: 'EUR/2', amount: big, relatedAccounts: [mainID] },
      { asset: 'USD/2', amount: 5n, relatedAccounts: [mainID] },
    ]);
  });

  test('getPoolBalancesLatest', async () => {
    await mainBalances();
    const id = await newPool();
    const balances = (await v3.getPoolBalancesLatest({ poolID: id })).v3PoolBalancesResponse!.data;
    expect(balances.map((b) => [b.asset, b.amount])).toEqual([
      ['EUR/2', big],
      ['USD/2', 5n],
    ]);
  });

  test('updatePoolQuery', async () => {
    const id = (await v3.createPool({ name: `pool-${suffix()}`, query: { $match: { connectorID } } })).v3CreatePoolResponse!.data;
    const res = await v3.updatePoolQuery({
      poolID: id,
      v3UpdatePoolQueryRequest: { query: { $and: [{ $match: { connectorID } }, { $match: { reference: 'main' } }] } },
    });
    expect(res.statusCode).toBe(204);
    expect((await v3.getPool({ poolID: id })).v3GetPoolResponse!.data.poolAccounts).toEqual([mainID]);
  });

  const extID = () =>
    mainID.length ? Buffer.from(Buffer.from(mainID, 'base64url').toString().replace('"main"', '"ext"')).toString('base64url') : '';
  const initiate = async (amount = 100n, asset = 'EUR/2', noValidation = false) => {
    const res = await v3.initiatePayment({
      noValidation,
      v3InitiatePaymentRequest: {
        reference: `pi-${suffix()}`,
        connectorID,
        type: 'TRANSFER',
        amount,
        asset,
        sourceAccountID: mainID,
        destinationAccountID: extID(),
        description: 'sdk',
        scheduledAt: new Date(),
        metadata: { k: 'v' },
      },
    });
    return res.v3InitiatePaymentResponse!.data;
  };
  const readInitiation = async (paymentInitiationID: string) =>
    (await v3.getPaymentInitiation({ paymentInitiationID })).v3GetPaymentInitiationResponse!.data;
  const processed = async () => {
    const { paymentInitiationID, taskID } = await initiate(100n, 'EUR/2', true);
    expect(await settled(taskID!)).toMatchObject({ status: 'SUCCEEDED' });
    return paymentInitiationID!;
  };

  test('initiatePayment', async () => {
    const data = await initiate();
    expect(data.paymentInitiationID).toEqual(expect.any(String));
    expect(data.taskID).toBeUndefined();
    expect((await readInitiation(data.paymentInitiationID!)).status).toBe('WAITING_FOR_VALIDATION');
  });

  test('listPaymentInitiations', async () => {
    const { paymentInitiationID } = await initiate();
    await processed();
    const query = { $and: [{ $match: { connectorID } }, { $match: { status: 'WAITING_FOR_VALIDATION' } }] };
    const data = (await v3.listPaymentInitiations({ pageSize: 100, query })).v3PaymentInitiationsCursorResponse!.cursor.data;
    expect(data.find((i) => i.id === paymentInitiationID)).toMatchObject({
      connectorID,
      amount: 100n,
      asset: 'EUR/2',
      type: 'TRANSFER',
      provider: 'SIMULATED',
    });
    expect(data.every((i) => i.status === 'WAITING_FOR_VALIDATION')).toBe(true);
  });

  test('getPaymentInitiation', async () => {
    const { paymentInitiationID } = await initiate(250n);
    const initiation = await readInitiation(paymentInitiationID!);
    expect(initiation).toMatchObject({
      id: paymentInitiationID,
      amount: 250n,
      sourceAccountID: mainID,
      destinationAccountID: extID(),
      description: 'sdk',
      metadata: { k: 'v' },
    });
    expect(initiation.scheduledAt).toBeInstanceOf(Date);
  });

  test('approvePaymentInitiation', async () => {
    const { paymentInitiationID } = await initiate();
    const res = await v3.approvePaymentInitiation({ paymentInitiationID: paymentInitiationID! });
    expect(res.statusCode).toBe(202);
    expect(await settled(res.v3ApprovePaymentInitiationResponse!.data.taskID)).toMatchObject({ status: 'SUCCEEDED' });
    expect((await readInitiation(paymentInitiationID!)).status).toBe('PROCESSED');
  });

  test('rejectPaymentInitiation', async () => {
    const { paymentInitiationID } = await initiate();
    expect((await v3.rejectPaymentInitiation({ paymentInitiationID: paymentInitiationID! })).statusCode).toBe(204);
    expect((await readInitiation(paymentInitiationID!)).status).toBe('REJECTED');
  });

  test('retryPaymentInitiation', async () => {
    await mainBalances();
    // USD/2 holds 5 on the source: the simulator refuses 500 (insufficient funds).
    const { paymentInitiationID, taskID } = await initiate(500n, 'USD/2', true);
    expect(await settled(taskID!)).toMatchObject({ status: 'FAILED' });
    const res = await v3.retryPaymentInitiation({ paymentInitiationID: paymentInitiationID! });
    expect(res.statusCode).toBe(202);
    const retried = res.v3RetryPaymentInitiationResponse!.data.taskID;
    expect(retried).not.toBe(taskID);
    expect(await settled(retried)).toMatchObject({ status: 'FAILED', error: expect.stringMatching(/insufficient funds/) });
  });

  test('reversePaymentInitiation', async () => {
    const paymentInitiationID = await processed();
    const reverse = (amount: bigint) =>
      v3.reversePaymentInitiation({
        paymentInitiationID,
        v3ReversePaymentInitiationRequest: { reference: `rev-${suffix()}`, amount, asset: 'EUR/2', description: 'undo', metadata: { why: 'sdk' } },
      });
    const res = await reverse(40n);
    expect(res.statusCode).toBe(202);
    const { paymentInitiationReversalID, taskID } = res.v3ReversePaymentInitiationResponse!.data;
    expect(paymentInitiationReversalID).toEqual(expect.any(String));
    expect(taskID).toBe(`payment-initiation-${paymentInitiationID}-reversal-1`);
    const task = await settled(taskID!);
    expect(task).toMatchObject({ status: 'SUCCEEDED', connectorID });
    const initiation = await readInitiation(paymentInitiationID);
    expect(initiation.status).toBe('REVERSED');
    const adjustments = (await v3.listPaymentInitiationAdjustments({ paymentInitiationID })).v3PaymentInitiationAdjustmentsCursorResponse!.cursor
      .data;
    expect(adjustments[0]).toMatchObject({ status: 'REVERSED', amount: 40n, asset: 'EUR/2', metadata: { why: 'sdk' } });
    const refund = (await v3.getPayment({ paymentID: task.createdObjectID! })).v3GetPaymentResponse!.data;
    expect(refund).toMatchObject({ status: 'REFUNDED', amount: 40n, type: 'TRANSFER' });
    // More than the 60 left is refused at once.
    await expect(reverse(61n)).rejects.toMatchObject({
      statusCode: 400,
      data$: { errorCode: 'VALIDATION', errorMessage: expect.stringMatching(/60 EUR\/2 remain/) },
    });
  });

  test('deletePaymentInitiation', async () => {
    const { paymentInitiationID } = await initiate();
    expect((await v3.deletePaymentInitiation({ paymentInitiationID: paymentInitiationID! })).statusCode).toBe(204);
    await expect(readInitiation(paymentInitiationID!)).rejects.toMatchObject({ statusCode: 404 });
  });

  test('listPaymentInitiationAdjustments', async () => {
    const paymentInitiationID = await processed();
    const data = (await v3.listPaymentInitiationAdjustments({ paymentInitiationID, pageSize: 10 })).v3PaymentInitiationAdjustmentsCursorResponse!
      .cursor.data;
    expect(data.map((a) => a.status)).toEqual(['PROCESSED', 'PROCESSING', 'SCHEDULED_FOR_PROCESSING', 'WAITING_FOR_VALIDATION']);
    expect(data[0]).toMatchObject({ amount: 100n, asset: 'EUR/2' });
  });

  test('listPaymentInitiationRelatedPayments', async () => {
    const paymentInitiationID = await processed();
    const data = (await v3.listPaymentInitiationRelatedPayments({ paymentInitiationID })).v3PaymentInitiationRelatedPaymentsCursorResponse!.cursor
      .data;
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ amount: 100n, asset: 'EUR/2', status: 'SUCCEEDED', type: 'TRANSFER', sourceAccountID: mainID, connectorID });
  });
});
