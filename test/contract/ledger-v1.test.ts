import { randomBytes } from 'node:crypto';
import { api } from '../support/http';
import { newLedger } from '../support/ledger';
import { sdkClient } from './sdk-client';

/**
 * Every method of Formance's `ledger.v1` through the official SDK. The SDK validates each response against
 * Formance's schemas, so a call that resolves proves the wire shape; the assertions check the values.
 */
const sdk = sdkClient();
const v1 = sdk.ledger.v1;
const usd = (source: string, destination: string, amount: number | bigint) => ({ source, destination, amount: BigInt(amount), asset: 'USD/2' });

/** A fresh ledger holding one transaction: world -> users:1, 100 USD/2 (txid 0). */
async function fundedLedger(prefix: string): Promise<string> {
  const ledger = await newLedger(prefix);
  await v1.createTransaction({ ledger, postTransaction: { postings: [usd('world', 'users:1', 100)] } });
  return ledger;
}

describe('contract: ledger.v1 through the Formance SDK', () => {
  test('getInfo', async () => {
    const ledger = await newLedger('v1info');
    const res = await v1.getInfo();
    const info = res.configInfoResponse!.data;
    expect(info.server).toBe('ledger');
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(info.config.storage.driver).toBe('postgres');
    expect(info.config.storage.ledgers).toContain(ledger);
  });

  test('getLedgerInfo', async () => {
    const ledger = await newLedger('v1linfo');
    const res = await v1.getLedgerInfo({ ledger });
    const info = res.ledgerInfoResponse!.data!;
    expect(info.name).toBe(ledger);
    const migrations = info.storage!.migrations!;
    expect(migrations.map((m) => m.name)).toEqual(expect.arrayContaining(['001-foundation', '012-ledger-mappings']));
    expect(migrations.every((m) => m.state === 'DONE' && m.date instanceof Date)).toBe(true);
    expect(migrations[0].version).toBe('1');
  });

  test('createTransaction', async () => {
    const ledger = await newLedger('v1create');
    const res = await v1.createTransaction({
      ledger,
      postTransaction: {
        postings: [usd('world', 'users:1', 250)],
        reference: 'ref-1',
        metadata: { kind: 'fund' },
        timestamp: new Date('2024-03-01T00:00:00Z'),
      },
    });
    const [tx] = res.transactionsResponse!.data;
    expect(tx.txid).toBe(0n);
    expect(tx.reference).toBe('ref-1');
    expect(tx.metadata).toEqual({ kind: 'fund' });
    expect(tx.timestamp.toISOString()).toBe('2024-03-01T00:00:00.000Z');
    expect(tx.postCommitVolumes!['users:1']['USD/2']).toEqual({ input: 250n, output: 0n, balance: 250n });
    const preview = await v1.createTransaction({ ledger, preview: true, postTransaction: { postings: [usd('users:1', 'users:2', 50)] } });
    expect(preview.transactionsResponse!.data[0].txid).toBe(1n);
    expect((await v1.readStats({ ledger })).statsResponse!.data.transactions).toBe(1);
  });

  test('createTransactions', async () => {
    const ledger = await newLedger('v1batch');
    const res = await v1.createTransactions({
      ledger,
      transactions: {
        transactions: [
          { postings: [usd('world', 'a', 10)], reference: 'b-1' },
          { postings: [usd('a', 'b', 4)], metadata: { step: '2' } },
        ],
      },
    });
    const data = res.transactionsResponse!.data;
    expect(data.map((t) => t.txid)).toEqual([0n, 1n]);
    expect(data[0].reference).toBe('b-1');
    expect(data[1].metadata).toEqual({ step: '2' });
    expect(data[1].postCommitVolumes!.a['USD/2'].balance).toBe(6n);
  });

  test('getTransaction', async () => {
    const ledger = await fundedLedger('v1get');
    const tx = (await v1.getTransaction({ ledger, txid: 0n })).transactionResponse!.data;
    expect(tx.txid).toBe(0n);
    expect(tx.postings).toEqual([usd('world', 'users:1', 100)]);
    expect(tx.preCommitVolumes!['users:1']['USD/2']).toEqual({ input: 0n, output: 0n, balance: 0n });
  });

  test('listTransactions', async () => {
    const ledger = await fundedLedger('v1list');
    await v1.createTransaction({
      ledger,
      postTransaction: { postings: [usd('users:1', 'shops:1', 30)], reference: 'buy', metadata: { kind: 'buy' } },
    });
    await v1.createTransaction({ ledger, postTransaction: { postings: [usd('users:1', 'shops:2', 5)] } });
    const all = (await v1.listTransactions({ ledger })).transactionsCursorResponse!.cursor;
    expect(all.data.map((t) => t.txid)).toEqual([2n, 1n, 0n]);
    expect(all.hasMore).toBe(false);
    const filtered = await v1.listTransactions({ ledger, account: 'users:1', metadata: { kind: 'buy' } });
    expect(filtered.transactionsCursorResponse!.cursor.data.map((t) => t.txid)).toEqual([1n]);
    expect((await v1.listTransactions({ ledger, after: '2' })).transactionsCursorResponse!.cursor.data.map((t) => t.txid)).toEqual([1n, 0n]);
    const first = (await v1.listTransactions({ ledger, pageSize: 2 })).transactionsCursorResponse!.cursor;
    expect(first.hasMore).toBe(true);
    const second = (await v1.listTransactions({ ledger, cursor: first.next })).transactionsCursorResponse!.cursor;
    expect(second.data.map((t) => t.txid)).toEqual([0n]);
  });

  test('countTransactions', async () => {
    const ledger = await fundedLedger('v1countt');
    await v1.createTransaction({ ledger, postTransaction: { postings: [usd('users:1', 'shops:1', 1)] } });
    expect((await v1.countTransactions({ ledger })).headers.count).toEqual(['2']);
    expect((await v1.countTransactions({ ledger, destination: 'shops:1' })).headers.count).toEqual(['1']);
  });

  test('addMetadataOnTransaction', async () => {
    const ledger = await fundedLedger('v1txmeta');
    const res = await v1.addMetadataOnTransaction({ ledger, txid: 0n, requestBody: { note: 'checked' } });
    expect(res.statusCode).toBe(204);
    expect((await v1.getTransaction({ ledger, txid: 0n })).transactionResponse!.data.metadata).toEqual({ note: 'checked' });
  });

  test('revertTransaction', async () => {
    const ledger = await fundedLedger('v1revert');
    const res = await v1.revertTransaction({ ledger, txid: 0n });
    expect(res.statusCode).toBe(201);
    const revert = res.transactionResponse!.data;
    expect(revert.txid).toBe(1n);
    expect(revert.postings).toEqual([usd('users:1', 'world', 100)]);
    expect(revert.metadata).toEqual({ 'com.formance.spec/state/reverts': '0' });
  });

  test('runScript', async () => {
    const ledger = await fundedLedger('v1script');
    const plain = 'vars { monetary $m } send $m ( source = @users:1 destination = @shops:9 )';
    const ok = await v1.runScript({ ledger, script: { plain, vars: { m: 'USD/2 40' }, reference: 'script-1', metadata: { via: 'script' } } });
    expect(ok.scriptResponse!.errorCode).toBeUndefined();
    expect(ok.scriptResponse!.transaction!.txid).toBe(1n);
    expect(ok.scriptResponse!.transaction!.reference).toBe('script-1');
    const short = await v1.runScript({ ledger, script: { plain, vars: { m: 'USD/2 1000' } } });
    expect(short.statusCode).toBe(200);
    expect(short.scriptResponse!.errorCode).toBe('INSUFFICIENT_FUND');
    expect(short.scriptResponse!.transaction).toBeUndefined();
    const broken = await v1.runScript({ ledger, script: { plain: 'send [USD/2 1] (' } });
    expect(broken.scriptResponse!.errorCode).toBe('COMPILATION_FAILED');
  });

  test('getAccount', async () => {
    const ledger = await fundedLedger('v1acc');
    const account = (await v1.getAccountLedger({ ledger, address: 'users:1' })).accountResponse!.data;
    expect(account.address).toBe('users:1');
    expect(account.balances).toEqual({ 'USD/2': 100n });
    expect(account.volumes!['USD/2']).toEqual({ input: 100n, output: 0n, balance: 100n });
    const unused = (await v1.getAccountLedger({ ledger, address: 'nobody:1' })).accountResponse!.data;
    expect(unused).toMatchObject({ address: 'nobody:1', balances: {}, volumes: {}, metadata: {} });
  });

  test('addMetadataToAccount', async () => {
    const ledger = await fundedLedger('v1accmeta');
    expect((await v1.addMetadataToAccount({ ledger, address: 'users:1', requestBody: { tier: 'gold' } })).statusCode).toBe(204);
    expect((await v1.getAccountLedger({ ledger, address: 'users:1' })).accountResponse!.data.metadata).toEqual({ tier: 'gold' });
  });

  test('listAccounts', async () => {
    const ledger = await fundedLedger('v1accs');
    await v1.createTransaction({ ledger, postTransaction: { postings: [usd('users:1', 'users:2', 40)] } });
    await v1.addMetadataToAccount({ ledger, address: 'users:2', requestBody: { tier: 'gold' } });
    const all = (await v1.listAccountsLedger({ ledger })).accountsCursorResponse!.cursor;
    expect(all.data.map((a) => a.address)).toEqual(['users:1', 'users:2', 'world']);
    const gold = (await v1.listAccountsLedger({ ledger, metadata: { tier: 'gold' } })).accountsCursorResponse!.cursor;
    expect(gold.data).toEqual([{ address: 'users:2', metadata: { tier: 'gold' } }]);
    const rich = (await v1.listAccountsLedger({ ledger, balance: 50 })).accountsCursorResponse!.cursor;
    expect(rich.data.map((a) => a.address)).toEqual(['users:1']);
    const after = (await v1.listAccountsLedger({ ledger, address: 'users:', after: 'users:1' })).accountsCursorResponse!.cursor;
    expect(after.data.map((a) => a.address)).toEqual(['users:2']);
  });

  test('countAccounts', async () => {
    const ledger = await fundedLedger('v1counta');
    expect((await v1.countAccounts({ ledger })).headers.count).toEqual(['2']);
    expect((await v1.countAccounts({ ledger, address: 'users:' })).headers.count).toEqual(['1']);
  });

  test('getBalances', async () => {
    const ledger = await fundedLedger('v1bal');
    await v1.createTransaction({ ledger, postTransaction: { postings: [usd('users:1', 'users:2', 30)] } });
    const cursor = (await v1.getBalances({ ledger, address: 'users:' })).balancesCursorResponse!.cursor;
    expect(cursor.data).toEqual([{ 'users:1': { 'USD/2': 70 } }, { 'users:2': { 'USD/2': 30 } }]);
    const page = (await v1.getBalances({ ledger, pageSize: 1 })).balancesCursorResponse!.cursor;
    expect(page.hasMore).toBe(true);
    expect((await v1.getBalances({ ledger, cursor: page.next })).balancesCursorResponse!.cursor.data).toEqual([{ 'users:2': { 'USD/2': 30 } }]);
  });

  test('getBalancesAggregated', async () => {
    const ledger = await fundedLedger('v1agg');
    await v1.createTransaction({ ledger, postTransaction: { postings: [usd('users:1', 'users:2', 30)] } });
    expect((await v1.getBalancesAggregated({ ledger, address: 'users:' })).aggregateBalancesResponse!.data).toEqual({ 'USD/2': 100 });
    expect((await v1.getBalancesAggregated({ ledger, useInsertionDate: true })).aggregateBalancesResponse!.data).toEqual({ 'USD/2': 0 });
  });

  test('readStats', async () => {
    const ledger = await fundedLedger('v1stats');
    expect((await v1.readStats({ ledger })).statsResponse!.data).toEqual({ accounts: 2, transactions: 1 });
  });

  test('listLogs', async () => {
    const ledger = await fundedLedger('v1logs');
    await v1.addMetadataToAccount({ ledger, address: 'users:1', requestBody: { k: 'v' } });
    await v1.revertTransaction({ ledger, txid: 0n });
    const logs = (await v1.listLogs({ ledger })).logsCursorResponse!.cursor.data;
    expect(logs.map((l) => [l.id, l.type])).toEqual([
      [2, 'NEW_TRANSACTION'],
      [1, 'SET_METADATA'],
      [0, 'NEW_TRANSACTION'],
    ]);
    expect(logs[2].data).toMatchObject({
      txid: 0,
      reference: '',
      postings: [{ source: 'world', destination: 'users:1', amount: 100, asset: 'USD/2' }],
    });
    expect(logs[1].data).toEqual({ targetType: 'ACCOUNT', targetId: 'users:1', metadata: { k: 'v' } });
    expect(logs[0].data).toMatchObject({ txid: 1, metadata: { 'com.formance.spec/state/reverts': '0' } });
    expect((await v1.listLogs({ ledger, after: '1' })).logsCursorResponse!.cursor.data.map((l) => l.id)).toEqual([0]);
  });

  test('updateMapping', async () => {
    const ledger = await newLedger('v1mapset');
    const res = await v1.updateMapping({ ledger, mapping: { contracts: [{ account: 'users:*', expr: {} }] } });
    expect(res.mappingResponse!.data).toEqual({ contracts: [{ account: 'users:*', expr: {} }] });
  });

  test('getMapping', async () => {
    const ledger = await newLedger('v1mapget');
    expect((await v1.getMapping({ ledger })).mappingResponse!.data).toBeNull();
    await v1.updateMapping({ ledger, mapping: { contracts: [{ account: 'shops:*', expr: {} }] } });
    expect((await v1.getMapping({ ledger })).mappingResponse!.data).toEqual({ contracts: [{ account: 'shops:*', expr: {} }] });
  });

  test('a first v1 write creates its ledger, as Formance v1 (reads of a missing ledger stay 404)', async () => {
    const ledger = `v1auto-${randomBytes(6).toString('hex')}`;
    expect((await api('GET', `/api/ledger/${ledger}/transactions`)).body.errorCode).toBe('LEDGER_NOT_FOUND');
    const created = await v1.createTransaction({ ledger, postTransaction: { postings: [usd('world', 'a', 1)] } });
    expect(created.transactionsResponse!.data[0].txid).toBe(0n);
    expect((await api('GET', `/api/ledger/v2/${ledger}`)).status).toBe(200);
  });
});
