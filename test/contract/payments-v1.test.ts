import { stringifyJson } from '../../lib/json';
import { api } from '../support/http';
import { isDefined, pollUntil } from '../support/eventually';
import { simulatedDirectory, suffix } from '../support/payments';
import { sdkClient } from './sdk-client';

/**
 * Formance's `payments.v1` through the official SDK. v1 names a connector by provider: the simulated plugin answers
 * as DUMMY-PAY (installed with a DummyPayConfig), the generic one as GENERIC. The provider-only forms act on the
 * provider's newest installed connector, so each test that uses them installs its own connector just before (test
 * files run one at a time, so no other file installs one in between).
 */
const v1 = sdkClient().payments.v1;

async function installDummy(files: Record<string, unknown> = { 'accounts.json': [{ reference: 'main' }] }): Promise<string> {
  const res = await v1.installConnector({
    connector: 'DUMMY-PAY',
    connectorConfig: { provider: 'Dummypay', name: `v1-${suffix()}`, directory: simulatedDirectory(files), filePollingPeriod: '30m' },
  });
  expect(res.statusCode).toBe(201);
  return res.connectorResponse!.data.connectorID;
}

/** A generic connector pointed at a closed port: its fetches fail, but v1 writes (payments, accounts) can name it. */
async function installGeneric(): Promise<string> {
  const res = await v1.installConnector({
    connector: 'GENERIC',
    connectorConfig: { provider: 'Generic', name: `v1-gen-${suffix()}`, endpoint: 'http://127.0.0.1:9', apiKey: 'k', pollingPeriod: '30m' },
  });
  return res.connectorResponse!.data.connectorID;
}

describe('contract: payments.v1 through the Formance SDK', () => {
  let dummyID: string;
  let genericID: string;
  let accountID: string;
  let paymentID: string;
  beforeAll(async () => {
    dummyID = await installDummy({
      'accounts.json': [{ reference: 'main' }],
      'balances.json': [{ accountReference: 'main', asset: 'EUR/2', amount: 2n ** 70n }],
    });
    genericID = await installGeneric();
    accountID = (
      await v1.createAccount({
        connectorID: genericID,
        reference: `acc-${suffix()}`,
        createdAt: new Date(),
        type: 'INTERNAL',
        accountName: 'main',
        defaultAsset: 'EUR/2',
      })
    ).accountResponse!.data.id;
    paymentID = (
      await v1.createPayment({
        connectorID: genericID,
        reference: `pay-${suffix()}`,
        createdAt: new Date(),
        type: 'PAY-IN',
        status: 'SUCCEEDED',
        scheme: 'sepa credit',
        asset: 'EUR/2',
        amount: 9007199254740991n,
        destinationAccountID: accountID,
      })
    ).paymentResponse!.data.id;
  });
  afterAll(async () => {
    await v1.uninstallConnectorV1({ connector: 'DUMMY-PAY', connectorId: dummyID }).catch(() => undefined);
    await v1.uninstallConnectorV1({ connector: 'GENERIC', connectorId: genericID }).catch(() => undefined);
  });

  test('getServerInfoPayments', async () => {
    const info = (await v1.getServerInfoPayments()).serverInfo!;
    expect(info.version).toMatch(/\d/);
    expect(info.debug).toBe(false);
  });

  test('installConnector', async () => {
    const id = await installDummy();
    expect(Buffer.from(id, 'base64url').toString()).toContain('"Provider":"simulated"');
    const bad = await api('POST', '/api/payments/connectors/MODULR', { body: { name: 'x', apiKey: 'y', apiSecret: 'z' } });
    expect(bad.status).toBe(400);
    await v1.uninstallConnectorV1({ connector: 'DUMMY-PAY', connectorId: id });
  });

  test('listAllConnectors', async () => {
    const list = (await v1.listAllConnectors()).connectorsResponse!.data;
    expect(list.find((c) => c.connectorID === dummyID)).toMatchObject({ provider: 'DUMMY-PAY', enabled: true });
    expect(list.find((c) => c.connectorID === genericID)).toMatchObject({ provider: 'GENERIC' });
  });

  test('listConfigsAvailableConnectors', async () => {
    const configs = (await v1.listConfigsAvailableConnectors()).connectorsConfigsResponse!.data;
    expect(configs.simulated.directory).toEqual({ dataType: 'string', required: true });
  });

  test('readConnectorConfigV1', async () => {
    const config = (await v1.readConnectorConfigV1({ connector: 'DUMMY-PAY', connectorId: dummyID })).connectorConfigResponse!.data;
    expect(config).toMatchObject({ provider: 'Dummypay', filePollingPeriod: '30m' });
    const generic = (await v1.readConnectorConfigV1({ connector: 'GENERIC', connectorId: genericID })).connectorConfigResponse!.data;
    expect(generic).toMatchObject({ provider: 'Generic', endpoint: 'http://127.0.0.1:9', apiKey: '********' });
  });

  test('readConnectorConfig', async () => {
    const id = await installDummy();
    const config = (await v1.readConnectorConfig({ connector: 'DUMMY-PAY' })).connectorConfigResponse!.data as { name: string };
    const mine = (await v1.readConnectorConfigV1({ connector: 'DUMMY-PAY', connectorId: id })).connectorConfigResponse!.data as { name: string };
    expect(config.name).toBe(mine.name);
    await v1.uninstallConnectorV1({ connector: 'DUMMY-PAY', connectorId: id });
  });

  test('uninstallConnectorV1', async () => {
    const id = await installDummy();
    expect((await v1.uninstallConnectorV1({ connector: 'DUMMY-PAY', connectorId: id })).statusCode).toBe(204);
    expect((await v1.listAllConnectors()).connectorsResponse!.data.some((c) => c.connectorID === id)).toBe(false);
    expect((await api('DELETE', `/api/payments/connectors/DUMMY-PAY/${id}`)).status).toBe(404);
  });

  test('uninstallConnector', async () => {
    const id = await installDummy();
    expect((await v1.uninstallConnector({ connector: 'DUMMY-PAY' })).statusCode).toBe(204);
    // Test files run one at a time (jest maxWorkers 1), so the newest DUMMY-PAY connector is the one just installed.
    expect((await v1.listAllConnectors()).connectorsResponse!.data.some((c) => c.connectorID === id)).toBe(false);
    expect((await api('DELETE', '/api/payments/connectors/MONEYCORP')).status).toBe(404);
  });

  test('resetConnectorV1', async () => {
    expect((await v1.resetConnectorV1({ connector: 'DUMMY-PAY', connectorId: dummyID })).statusCode).toBe(204);
    const tasks = await pollUntil(
      async () => {
        const data = (await v1.listConnectorTasksV1({ connector: 'DUMMY-PAY', connectorId: dummyID })).tasksCursor!.cursor.data;
        return data.some((t) => t.id.endsWith('-reset')) ? data : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'reset task' },
    );
    expect(tasks.map((t) => t.connectorID)).toEqual(tasks.map(() => dummyID));
  });

  test('resetConnector', async () => {
    const id = await installDummy();
    expect((await v1.resetConnector({ connector: 'DUMMY-PAY' })).statusCode).toBe(204);
    expect((await api('POST', '/api/payments/connectors/GENERIC/not-a-connector/reset')).status).toBe(404);
    await v1.uninstallConnectorV1({ connector: 'DUMMY-PAY', connectorId: id });
  });

  test('listConnectorTasksV1', async () => {
    const cursor = (await v1.listConnectorTasksV1({ connector: 'DUMMY-PAY', connectorId: dummyID, pageSize: 10 })).tasksCursor!.cursor;
    expect(cursor).toMatchObject({ pageSize: 10, hasMore: false });
    const install = cursor.data.find((t) => t.id.endsWith('-install'))!;
    expect(install).toMatchObject({ connectorID: dummyID, descriptor: { name: 'install' } });
    expect(['ACTIVE', 'TERMINATED']).toContain(install.status);
  });

  test('listConnectorTasks', async () => {
    const id = await installDummy();
    const data = (await v1.listConnectorTasks({ connector: 'DUMMY-PAY' })).tasksCursor!.cursor.data;
    expect(data.length).toBeGreaterThan(0);
    expect(data.every((t) => t.id.endsWith('-install') || t.id.endsWith('-reset') || t.id.endsWith('-uninstall'))).toBe(true);
    await v1.uninstallConnectorV1({ connector: 'DUMMY-PAY', connectorId: id });
  });

  test('getConnectorTaskV1', async () => {
    const taskId = (await v1.listConnectorTasksV1({ connector: 'DUMMY-PAY', connectorId: dummyID })).tasksCursor!.cursor.data.find((t) =>
      t.id.endsWith('-install'),
    )!.id;
    const task = await pollUntil(
      async () => {
        const t = (await v1.getConnectorTaskV1({ connector: 'DUMMY-PAY', connectorId: dummyID, taskId })).taskResponse!.data;
        return t.status === 'TERMINATED' ? t : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'install task' },
    );
    expect(task).toMatchObject({ id: taskId, connectorID: dummyID });
    expect((await api('GET', `/api/payments/connectors/DUMMY-PAY/${dummyID}/tasks/nope`)).status).toBe(404);
  });

  test('getConnectorTask', async () => {
    const id = await installDummy();
    const taskId = (await v1.listConnectorTasks({ connector: 'DUMMY-PAY' })).tasksCursor!.cursor.data[0].id;
    const task = (await v1.getConnectorTask({ connector: 'DUMMY-PAY', taskId })).taskResponse!.data;
    expect(task.id).toBe(taskId);
    await v1.uninstallConnectorV1({ connector: 'DUMMY-PAY', connectorId: id });
  });

  test('createPayment', async () => {
    const res = await v1.createPayment({
      connectorID: genericID,
      reference: `pay-${suffix()}`,
      createdAt: new Date('2024-01-02T03:04:05Z'),
      type: 'PAYOUT',
      status: 'PENDING',
      scheme: 'other',
      asset: 'USD/2',
      amount: 1234n,
      sourceAccountID: accountID,
    });
    expect(res.statusCode).toBe(200);
    expect(res.paymentResponse!.data).toMatchObject({
      connectorID: genericID,
      provider: 'GENERIC',
      amount: 1234n,
      initialAmount: 1234n,
      sourceAccountID: accountID,
      status: 'PENDING',
    });
    const unknownConnector = await api('POST', '/api/payments/payments', {
      body: {
        connectorID: 'nope',
        reference: 'r',
        createdAt: new Date().toISOString(),
        type: 'PAYOUT',
        status: 'PENDING',
        scheme: 'other',
        asset: 'USD/2',
        amount: 1,
      },
    });
    expect(unknownConnector.status).toBe(404);
    const body = {
      connectorID: genericID,
      createdAt: new Date().toISOString(),
      type: 'PAYOUT',
      status: 'PENDING',
      scheme: 'other',
      asset: 'USD/2',
      amount: 1,
    };
    const foreignAccount = await api('POST', '/api/payments/payments', {
      body: { ...body, reference: `r-${suffix()}`, sourceAccountID: 'bm90LWFuLWlk' },
    });
    expect(foreignAccount.status).toBe(400);
    const missing = Buffer.from(stringifyJson({ ConnectorID: genericID, Reference: 'no-such-account' })).toString('base64url');
    // As in a fetch, a payment may name an account of its connector that is not known yet (providers report in any order).
    const missingAccount = await api('POST', '/api/payments/payments', {
      body: { ...body, reference: `r-${suffix()}`, destinationAccountID: missing },
    });
    expect(missingAccount.status).toBe(200);
    expect(missingAccount.body.data.destinationAccountID).toBe(missing);
    // The SDK writes a bigint amount as a JS number, so an amount beyond 2^53 is checked over raw HTTP: exact both ways.
    const big = 340282366920938463463374607431768211455n;
    const raw = await api('POST', '/api/payments/payments', {
      body: {
        connectorID: genericID,
        reference: `big-${suffix()}`,
        createdAt: new Date().toISOString(),
        type: 'PAYOUT',
        status: 'PENDING',
        scheme: 'other',
        asset: 'USD/2',
        amount: big,
      },
    });
    expect(raw.status).toBe(200);
    expect(raw.text).toContain(`"amount":${big}`);
  });

  // listPayments and getPayment are the spec's operation 7 and its read; the SDK parses them when `provider` is one of
  // Formance's connector names (GENERIC here). A simulated connector's payments read as SIMULATED (the spec's), which
  // the v1 SDK's enum refuses: the spec wins, and that shape is asserted over raw HTTP in the payments tests.
  test('listPayments', async () => {
    const cursor = (await v1.listPayments({ pageSize: 100, query: stringifyJson({ $match: { connectorID: genericID } }) })).paymentsCursor!.cursor;
    expect(cursor.data.find((p) => p.id === paymentID)).toMatchObject({
      amount: 9007199254740991n,
      destinationAccountID: accountID,
      scheme: 'sepa credit',
    });
  });

  test('getPayment', async () => {
    const payment = (await v1.getPayment({ paymentId: paymentID })).paymentResponse!.data;
    expect(payment).toMatchObject({ id: paymentID, type: 'PAY-IN', status: 'SUCCEEDED', provider: 'GENERIC', amount: 9007199254740991n });
  });

  test('updateMetadata', async () => {
    expect((await v1.updateMetadata({ paymentId: paymentID, requestBody: { team: 'ops' } })).statusCode).toBe(204);
    expect((await v1.getPayment({ paymentId: paymentID })).paymentResponse!.data.metadata).toMatchObject({ team: 'ops' });
  });

  test('createAccount', async () => {
    const reference = `acc-${suffix()}`;
    const account = (await v1.createAccount({ connectorID: genericID, reference, createdAt: new Date(), type: 'EXTERNAL', metadata: { k: 'v' } }))
      .accountResponse!.data;
    expect(account).toMatchObject({
      connectorID: genericID,
      reference,
      type: 'EXTERNAL',
      accountName: '',
      defaultAsset: '',
      metadata: { k: 'v' },
      provider: 'GENERIC',
    });
  });

  test('listAccountsPayments', async () => {
    const cursor = (await v1.listAccountsPayments({ pageSize: 1000 })).accountsCursor!.cursor;
    expect(cursor.data.find((a) => a.id === accountID)).toMatchObject({ accountName: 'main', defaultAsset: 'EUR/2', type: 'INTERNAL', pools: [] });
  });

  test('getAccountPayments', async () => {
    const account = (await v1.getAccountPayments({ accountId: accountID })).accountResponse!.data;
    expect(account).toMatchObject({ id: accountID, connectorID: genericID, accountName: 'main' });
    expect((await api('GET', '/api/payments/accounts/nope')).status).toBe(404);
  });

  test('getAccountBalances', async () => {
    const mainID = Buffer.from(stringifyJson({ ConnectorID: dummyID, Reference: 'main' })).toString('base64url');
    const balances = await pollUntil(
      async () => {
        const res = await v1.getAccountBalances({ accountId: mainID, asset: 'EUR/2' }).catch(() => undefined);
        const data = res?.balancesCursor?.cursor.data;
        return data?.length ? data : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'balances' },
    );
    expect(balances[0]).toMatchObject({ accountId: mainID, asset: 'EUR/2', currency: 'EUR/2', balance: 2n ** 70n });
  });
  test('createBankAccount', async () => {
    const created = (await v1.createBankAccount({ name: `ba-${suffix()}`, country: 'FR', iban: 'FR7630006000011234567890189', metadata: { k: 'v' } }))
      .bankAccountResponse!.data;
    expect(created).toMatchObject({ country: 'FR', iban: 'FR76*******************0189', metadata: { k: 'v' }, relatedAccounts: [] });
    const forwarded = (await v1.createBankAccount({ name: `ba-${suffix()}`, country: 'DE', accountNumber: '12345678', connectorID: dummyID }))
      .bankAccountResponse!.data;
    expect(forwarded.relatedAccounts).toEqual([expect.objectContaining({ connectorID: dummyID })]);
    expect((await api('POST', '/api/payments/bank-accounts', { body: { name: 'x', iban: 'FR7630006000011234567890189' } })).status).toBe(400);
  });

  test('getBankAccount', async () => {
    const id = (await v1.createBankAccount({ name: `ba-${suffix()}`, country: 'FR', accountNumber: '12345678' })).bankAccountResponse!.data.id;
    expect((await v1.getBankAccount({ bankAccountId: id })).bankAccountResponse!.data).toMatchObject({
      id,
      country: 'FR',
      accountNumber: '12***678',
    });
  });

  test('listBankAccounts', async () => {
    const id = (await v1.createBankAccount({ name: `ba-${suffix()}`, country: 'FR', accountNumber: '12345678' })).bankAccountResponse!.data.id;
    const cursor = (await v1.listBankAccounts({ pageSize: 1000, sort: ['createdAt:desc'] })).bankAccountsCursor!.cursor;
    expect(cursor.data.find((b) => b.id === id)).toMatchObject({ country: 'FR' });
  });

  test('forwardBankAccount', async () => {
    const id = (await v1.createBankAccount({ name: `ba-${suffix()}`, country: 'FR', accountNumber: '12345678' })).bankAccountResponse!.data.id;
    const res = await v1.forwardBankAccount({ bankAccountId: id, forwardBankAccountRequest: { connectorID: dummyID } });
    expect(res.bankAccountResponse!.data.relatedAccounts).toEqual([expect.objectContaining({ connectorID: dummyID, provider: 'SIMULATED' })]);
  });

  test('updateBankAccountMetadata', async () => {
    const id = (await v1.createBankAccount({ name: `ba-${suffix()}`, country: 'FR', accountNumber: '12345678', metadata: { a: '1' } }))
      .bankAccountResponse!.data.id;
    const res = await v1.updateBankAccountMetadata({ bankAccountId: id, updateBankAccountMetadataRequest: { metadata: { b: '2' } } });
    expect(res.statusCode).toBe(204);
    expect((await v1.getBankAccount({ bankAccountId: id })).bankAccountResponse!.data.metadata).toEqual({ a: '1', b: '2' });
  });

  const mainAccount = () => Buffer.from(stringifyJson({ ConnectorID: dummyID, Reference: 'main' })).toString('base64url');
  const newPool = async (accountIDs: string[] = [accountID]) => (await v1.createPool({ name: `pool-${suffix()}`, accountIDs })).poolResponse!.data;

  test('createPool', async () => {
    const pool = await newPool();
    expect(pool).toMatchObject({ accounts: [accountID], type: 'STATIC' });
    // A dynamic pool (Formance v3's, also served by v1): its accounts are the INTERNAL ones its query matches.
    const dynamic = (await v1.createPool({ name: `q-${suffix()}`, query: { $match: { id: accountID } } })).poolResponse!.data;
    expect(dynamic).toMatchObject({ accounts: [accountID], type: 'DYNAMIC', query: { $match: { id: accountID } } });
    const both = await v1.createPool({ name: `q-${suffix()}`, accountIDs: [accountID], query: { $match: {} } }).catch((e: unknown) => e);
    expect(both).toMatchObject({ statusCode: 400, errorCode: 'VALIDATION' });
  });

  test('getPool', async () => {
    const pool = await newPool();
    expect((await v1.getPool({ poolId: pool.id })).poolResponse!.data).toMatchObject({ id: pool.id, name: pool.name, accounts: [accountID] });
  });

  test('listPools', async () => {
    const pool = await newPool();
    const cursor = (await v1.listPools({ pageSize: 1000 })).poolsCursor!.cursor;
    expect(cursor.data.find((p) => p.id === pool.id)).toMatchObject({ accounts: [accountID] });
  });

  test('deletePool', async () => {
    const pool = await newPool();
    expect((await v1.deletePool({ poolId: pool.id })).statusCode).toBe(204);
    expect((await api('GET', `/api/payments/pools/${pool.id}`)).status).toBe(404);
  });

  test('addAccountToPool', async () => {
    const pool = await newPool([]);
    expect((await v1.addAccountToPool({ poolId: pool.id, addAccountToPoolRequest: { accountID } })).statusCode).toBe(204);
    expect((await v1.getPool({ poolId: pool.id })).poolResponse!.data.accounts).toEqual([accountID]);
  });

  test('removeAccountFromPool', async () => {
    const pool = await newPool();
    expect((await v1.removeAccountFromPool({ poolId: pool.id, accountId: accountID })).statusCode).toBe(204);
    expect((await v1.getPool({ poolId: pool.id })).poolResponse!.data.accounts).toEqual([]);
  });

  test('getPoolBalancesLatest', async () => {
    await pollUntil(
      async () => ((await api('GET', `/api/payments/accounts/${mainAccount()}/balances`)).body?.cursor?.data?.length ? true : undefined),
      isDefined,
      { timeoutMs: 30_000, what: 'balance' },
    );
    const pool = await newPool([mainAccount(), accountID]);
    const balances = (await v1.getPoolBalancesLatest({ poolId: pool.id })).poolBalancesLatestResponse!.data;
    expect(balances).toEqual([{ asset: 'EUR/2', amount: 2n ** 70n, relatedAccounts: [mainAccount()] }]);
  });

  test('getPoolBalances', async () => {
    await pollUntil(
      async () => ((await api('GET', `/api/payments/accounts/${mainAccount()}/balances`)).body?.cursor?.data?.length ? true : undefined),
      isDefined,
      { timeoutMs: 30_000, what: 'balance' },
    );
    const pool = await newPool([mainAccount()]);
    const res = (await v1.getPoolBalances({ poolId: pool.id, at: new Date() })).poolBalancesResponse!.data;
    expect(res.balances).toEqual([{ asset: 'EUR/2', amount: 2n ** 70n, relatedAccounts: [mainAccount()] }]);
  });

  test('updatePoolQuery', async () => {
    const dynamic = (await v1.createPool({ name: `q-${suffix()}`, query: { $match: { id: 'no-such-account' } } })).poolResponse!.data;
    expect(dynamic.accounts).toEqual([]);
    await v1.updatePoolQuery({ poolId: dynamic.id, updatePoolQueryRequest: { query: { $match: { id: accountID } } } });
    expect((await v1.getPool({ poolId: dynamic.id })).poolResponse!.data).toMatchObject({
      type: 'DYNAMIC',
      accounts: [accountID],
      query: { $match: { id: accountID } },
    });
    // A static pool's accounts are changed one by one, not by a query.
    const error = await v1
      .updatePoolQuery({ poolId: (await newPool()).id, updatePoolQueryRequest: { query: { $match: { type: 'INTERNAL' } } } })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ statusCode: 400, errorCode: 'VALIDATION', errorMessage: expect.stringContaining('static') });
  });
  test('updateConnectorConfigV1', async () => {
    const id = await installDummy();
    const config = (await v1.readConnectorConfigV1({ connector: 'DUMMY-PAY', connectorId: id })).connectorConfigResponse!.data as {
      name: string;
      directory: string;
    };
    const res = await v1.updateConnectorConfigV1({
      connector: 'DUMMY-PAY',
      connectorId: id,
      connectorConfig: { provider: 'Dummypay', name: config.name, directory: config.directory, filePollingPeriod: '10m' },
    });
    expect(res.statusCode).toBe(204);
    expect((await v1.readConnectorConfigV1({ connector: 'DUMMY-PAY', connectorId: id })).connectorConfigResponse!.data).toMatchObject({
      filePollingPeriod: '10m',
    });
    await v1.uninstallConnectorV1({ connector: 'DUMMY-PAY', connectorId: id });
    // A generic connector's request timeout, which v1's GenericConfig cannot carry, survives a v1 update.
    const name = `v3-gen-${suffix()}`;
    const generic = (
      await api('POST', '/api/payments/v3/connectors/install/generic', {
        body: { name, endpoint: 'http://127.0.0.1:9', pollingPeriod: '30m', timeout: '5s' },
      })
    ).body.data;
    await v1.updateConnectorConfigV1({
      connector: 'GENERIC',
      connectorId: generic,
      connectorConfig: { provider: 'Generic', name, endpoint: 'http://127.0.0.1:9', apiKey: '', pollingPeriod: '20m' },
    });
    expect((await api('GET', `/api/payments/v3/connectors/${generic}/config`)).body.data).toMatchObject({ pollingPeriod: '20m', timeout: '5s' });
    await v1.uninstallConnectorV1({ connector: 'GENERIC', connectorId: generic });
  });
});
