import { importLogs } from '../../../areas/ledger';
import { createDb, type Db } from '../../../db/knex';
import { api } from '../../support/http';
import { newLedger, posting, postTransaction } from '../../support/ledger';
import { exportLogs, hashedUpTo, ledgerState } from '../../support/ledger-logs';
import { foreignSigner, newTransaction, signedExport, type ExportLog } from '../../support/log-exports';

const signer = foreignSigner();
const REVERTS = 'com.formance.spec/state/reverts';
const T0 = '2026-01-01T00:00:00.000Z';

/** Imports logs signed by a foreign key, so the export is authentic and only the replay can refuse it. */
async function importSigned(logs: ExportLog[]) {
  const ledger = await newLedger('logs-rules');
  const res = await api('POST', `/api/ledger/v2/${ledger}/logs/import?publicKey=${signer.publicKey}`, {
    rawBody: signedExport(logs, signer),
    headers: { 'Content-Type': 'application/octet-stream' },
  });
  return { ledger, res };
}

const paid50 = { type: 'NEW_TRANSACTION', data: newTransaction(0, [posting('world', 'users:a', 50)]) };

/** The REVERTED_TRANSACTION log of transaction 0 (paid50) as the ledger writes it, with `postings` as the revert's. */
const revertOf0 = (postings: unknown[], id = 1) => ({
  type: 'REVERTED_TRANSACTION',
  data: {
    revertedTransaction: { id: 0, postings: [posting('world', 'users:a', 50)], metadata: {}, timestamp: T0, reverted: true },
    transaction: { id, postings, metadata: { [REVERTS]: '0' }, timestamp: T0, reverted: false },
  },
});

const logCount = async (ledger: string) => (await api('GET', `/api/ledger/v2/${ledger}/logs/chain`)).body.data.logs;

/** An import replays every log through the ledger's rules: a log that claims what its replay does not write is refused. */
describe('ledger log import replays the rules', () => {
  it('imports a revert that mirrors its original', async () => {
    const { ledger, res } = await importSigned([paid50, revertOf0([posting('users:a', 'world', 50)])]);
    expect(res.status).toBe(204);
    expect((await api('GET', `/api/ledger/v2/${ledger}/transactions/0`)).body.data).toMatchObject({ reverted: true });
  });

  it('refuses a revert paying back 10^9 for an original of 50, naming the log, and writes nothing', async () => {
    const { ledger, res } = await importSigned([paid50, revertOf0([posting('users:a', 'world', 1_000_000_000)])]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      errorCode: 'IMPORT',
      errorDetails: { logId: 1 },
      errorMessage: expect.stringContaining('log 1: transaction.postings: a revert must mirror transaction 0'),
    });
    expect(await logCount(ledger)).toBe(0);
    expect((await api('GET', `/api/ledger/v2/${ledger}/transactions`)).body.cursor.data).toEqual([]);
  });

  it('refuses a revert crediting another account than the original debited', async () => {
    const { ledger, res } = await importSigned([paid50, revertOf0([posting('users:a', 'users:thief', 50)])]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorCode: 'IMPORT', errorDetails: { logId: 1 }, errorMessage: expect.stringContaining('mirror') });
    expect(await logCount(ledger)).toBe(0);
  });

  it('refuses a revert of a missing or already reverted transaction, and one misquoting its original', async () => {
    const missing = await importSigned([{ ...revertOf0([posting('users:a', 'world', 50)], 0) }]);
    expect(missing.res.body).toMatchObject({
      errorCode: 'IMPORT',
      errorDetails: { logId: 0 },
      errorMessage: expect.stringContaining('transaction 0 not found'),
    });
    const twice = await importSigned([paid50, revertOf0([posting('users:a', 'world', 50)]), revertOf0([posting('users:a', 'world', 50)], 2)]);
    expect(twice.res.body).toMatchObject({
      errorCode: 'IMPORT',
      errorDetails: { logId: 2 },
      errorMessage: expect.stringContaining('already reverted'),
    });
    const misquoted = revertOf0([posting('users:a', 'world', 50)]);
    (misquoted.data.revertedTransaction.postings[0] as { amount: number }).amount = 5;
    const quoted = await importSigned([paid50, misquoted]);
    expect(quoted.res.body).toMatchObject({
      errorCode: 'IMPORT',
      errorDetails: { logId: 1 },
      errorMessage: expect.stringContaining('revertedTransaction.postings.0.amount is 5'),
    });
  });

  it('refuses an amount of 1.5 with a 400 naming the log, not a 500', async () => {
    const { ledger, res } = await importSigned([paid50, { type: 'NEW_TRANSACTION', data: newTransaction(1, [posting('users:a', 'users:b', 1.5)]) }]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      errorCode: 'IMPORT',
      errorDetails: { logId: 1 },
      errorMessage: 'log 1: transaction.postings[0].amount: must be an integer',
    });
    expect(await logCount(ledger)).toBe(0);
  });

  it('refuses a transaction claiming volumes, another txid, or a reused reference', async () => {
    const withVolumes = newTransaction(0, [posting('world', 'users:a', 50)]) as any;
    withVolumes.transaction.postCommitVolumes = { 'users:a': { 'USD/2': { input: 1_000_000, output: 0, balance: 1_000_000 } } };
    const volumes = await importSigned([{ type: 'NEW_TRANSACTION', data: withVolumes }]);
    expect(volumes.res.body).toMatchObject({
      errorCode: 'IMPORT',
      errorDetails: { logId: 0 },
      errorMessage: expect.stringContaining('transaction.postCommitVolumes'),
    });
    const skipped = await importSigned([paid50, { type: 'NEW_TRANSACTION', data: newTransaction(5, [posting('world', 'users:a', 1)]) }]);
    expect(skipped.res.body).toMatchObject({
      errorCode: 'IMPORT',
      errorDetails: { logId: 1 },
      errorMessage: expect.stringContaining('transaction.id is 5'),
    });
    const reused = await importSigned([
      { type: 'NEW_TRANSACTION', data: newTransaction(0, [posting('world', 'users:a', 1)], { reference: 'r' }) },
      { type: 'NEW_TRANSACTION', data: newTransaction(1, [posting('world', 'users:a', 1)], { reference: 'r' }) },
    ]);
    expect(reused.res.body).toMatchObject({
      errorCode: 'IMPORT',
      errorDetails: { logId: 1 },
      errorMessage: expect.stringContaining('reference "r"'),
    });
  });

  it('refuses metadata logs that target a missing transaction or delete an absent key', async () => {
    const setOnMissing = await importSigned([
      paid50,
      { type: 'SET_METADATA', data: { targetType: 'TRANSACTION', targetId: 7, metadata: { a: 'b' } } },
    ]);
    expect(setOnMissing.res.body).toMatchObject({
      errorCode: 'IMPORT',
      errorDetails: { logId: 1 },
      errorMessage: expect.stringContaining('transaction 7 not found'),
    });
    const deleteAbsent = await importSigned([paid50, { type: 'DELETE_METADATA', data: { targetType: 'ACCOUNT', targetId: 'users:a', key: 'nope' } }]);
    expect(deleteAbsent.res.body).toMatchObject({
      errorCode: 'IMPORT',
      errorDetails: { logId: 1 },
      errorMessage: expect.stringContaining('"nope" is not set'),
    });
    const fine = await importSigned([
      paid50,
      { type: 'SET_METADATA', data: { targetType: 'TRANSACTION', targetId: 0, metadata: { a: 'b' } } },
      { type: 'SET_METADATA', data: { targetType: 'ACCOUNT', targetId: 'users:a', metadata: { tier: 'gold' } } },
      { type: 'DELETE_METADATA', data: { targetType: 'ACCOUNT', targetId: 'users:a', key: 'tier' } },
    ]);
    expect(fine.res.status).toBe(204);
    expect(await logCount(fine.ledger)).toBe(4);
  });

  it('names the first offending log when the revert and metadata logs before a later bad log are refused', async () => {
    const setOnMissing = { type: 'SET_METADATA', data: { targetType: 'TRANSACTION', targetId: 7, metadata: { a: 'b' } } };
    // A later metadata log that is malformed, a later transaction that is: the run before it is written first.
    for (const later of [
      { type: 'SET_METADATA', data: { targetType: 'ACCOUNT', targetId: 'users:a', metadata: { a: 1 } } },
      { type: 'NEW_TRANSACTION', data: newTransaction(1, [posting('users:a', 'users:b', 1.5)]) },
    ]) {
      const { ledger, res } = await importSigned([paid50, setOnMissing, later]);
      expect(res.body).toMatchObject({
        errorCode: 'IMPORT',
        errorDetails: { logId: 1 },
        errorMessage: expect.stringContaining('log 1: transaction 7 not found'),
      });
      expect(await logCount(ledger)).toBe(0);
    }
  });

  describe('runs of revert and metadata logs', () => {
    let db: Db;
    beforeAll(() => {
      db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 2 });
    });
    afterAll(() => db.destroy());

    it('replays consecutive revert and metadata logs as one batch of the write pipeline, each log as given', async () => {
      const source = await newLedger('logs-runs');
      const ok = (res: { status: number }) => expect(res.status).toBeLessThan(300);
      ok(await postTransaction(source, { postings: [posting('world', 'users:a', 50)] })); // log 0, tx 0
      ok(await api('POST', `/api/ledger/v2/${source}/transactions/0/revert`)); // log 1, tx 1
      ok(await api('POST', `/api/ledger/v2/${source}/transactions/1/metadata`, { body: { note: 'revert' } })); // log 2: of the run's tx 1
      ok(await api('POST', `/api/ledger/v2/${source}/transactions/1/revert`)); // log 3, tx 2: a revert of the run's revert
      ok(await api('POST', `/api/ledger/v2/${source}/accounts/users:a/metadata`, { body: { tier: 'gold', kyc: 'ok' } })); // log 4
      ok(await api('DELETE', `/api/ledger/v2/${source}/accounts/users:a/metadata/tier`)); // log 5
      ok(await postTransaction(source, { postings: [posting('world', 'users:b', 5)] })); // log 6, tx 3
      ok(await api('POST', `/api/ledger/v2/${source}/transactions/3/metadata`, { body: { k: 'v' } })); // log 7
      await hashedUpTo(source);
      const exported = await exportLogs(source);
      expect(exported.text.trim().split('\n')).toHaveLength(8);

      const copy = await newLedger('logs-runs-copy');
      const statements: string[] = [];
      const listener = (query: { sql: string }) => statements.push(query.sql);
      db.on('query', listener);
      try {
        expect(await importLogs(db, copy, exported.text.trim().split('\n'))).toEqual({ logs: 8 });
      } finally {
        db.off('query', listener);
      }
      // Logs are written by 5 statements, not 8: the chunk of log 0; logs 1-5 as one batch in two rounds (log 2 annotates
      // the transaction log 1 creates, so it starts the next round, with log 3 reverting that transaction); log 6's chunk;
      // log 7's batch.
      expect(statements.filter((sql) => /INSERT INTO ledger_logs/.test(sql))).toHaveLength(5);
      expect(await ledgerState(copy)).toEqual(await ledgerState(source));
      await hashedUpTo(copy);
      expect((await exportLogs(copy)).text).toBe(exported.text);
    });
  });
});
