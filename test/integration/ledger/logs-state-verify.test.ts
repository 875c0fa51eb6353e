import { createDb, type Db } from '../../../db/knex';
import { api } from '../../support/http';
import { newLedger, postTransaction, posting } from '../../support/ledger';
import { hashedUpTo, verifyScript } from '../../support/ledger-logs';

const verify = async (ledger: string) => {
  const res = await api('POST', `/api/ledger/v2/${ledger}/logs/verify`);
  expect(res.status).toBe(200);
  return res.body.data;
};

/**
 * A ledger with every kind of log: plain postings, a script that sets account metadata, account and transaction
 * metadata set and deleted, a revert. Logs 0..9; transactions 0..4 (4 reverts 1).
 */
async function buildLedger(prefix: string): Promise<string> {
  const ledger = await newLedger(prefix);
  const ok = (status: number, expected: number) => expect(status).toBe(expected);
  ok((await postTransaction(ledger, { postings: [posting('world', 'users:1', 100)], metadata: { order: 'o-1' } })).status, 200); // log 0, tx 0
  ok((await postTransaction(ledger, { postings: [posting('users:1', 'users:2', 30)], reference: 'ref-1' })).status, 200); // log 1, tx 1
  const script = 'send [USD/2 20] (\n  source = @users:1\n  destination = @users:3\n)\nset_account_meta(@users:3, "tier", "silver")';
  ok((await postTransaction(ledger, { script: { plain: script } })).status, 200); // log 2, tx 2
  ok((await api('POST', `/api/ledger/v2/${ledger}/accounts/users:1/metadata`, { body: { kyc: 'done', region: 'eu' } })).status, 204); // log 3
  ok((await api('DELETE', `/api/ledger/v2/${ledger}/accounts/users:1/metadata/region`)).status, 204); // log 4
  ok((await api('POST', `/api/ledger/v2/${ledger}/transactions/0/metadata`, { body: { batch: 'b-7', note: 'x' } })).status, 204); // log 5
  ok((await api('DELETE', `/api/ledger/v2/${ledger}/transactions/0/metadata/note`)).status, 204); // log 6
  ok((await postTransaction(ledger, { postings: [posting('world', 'users:2', 5, 'EUR/2')] })).status, 200); // log 7, tx 3
  ok((await api('POST', `/api/ledger/v2/${ledger}/transactions/1/revert`)).status, 201); // log 8, tx 4
  ok((await api('POST', `/api/ledger/v2/${ledger}/accounts/users:9/metadata`, { body: { owner: 'nobody' } })).status, 204); // log 9
  await hashedUpTo(ledger);
  return ledger;
}

/** POST .../logs/verify and `npm run ledger:verify` replay the log and name what the database stores differently. */
describe('ledger state verification', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 2 });
  });
  afterAll(() => db.destroy());

  it('finds nothing on a clean ledger, over the API and in npm run ledger:verify', async () => {
    const ledger = await buildLedger('state-clean');
    expect(await verify(ledger)).toEqual({ valid: true, logs: 10, hashed: 10, checkpoints: 0, mismatches: [], mismatchCount: 0 });
    expect(await verifyScript(ledger)).toMatchObject({ code: 0, report: { ledger, valid: true, logs: 10, mismatches: [], mismatchCount: 0 } });
  }, 60_000);

  it('names a changed volume row with its account, asset, expected and stored volumes', async () => {
    const ledger = await buildLedger('state-volume');
    await db('ledger_volumes')
      .where({ ledger, address: 'users:2', asset: 'USD/2' })
      .update({ input: db.raw('input + 7') });
    const result = await verify(ledger);
    expect(result).toMatchObject({ valid: false, mismatchCount: 1 });
    expect(result.firstBroken).toBeUndefined();
    expect(result.mismatches).toEqual([
      {
        kind: 'VOLUME_MISMATCH',
        account: 'users:2',
        asset: 'USD/2',
        expected: { input: 30, output: 30 },
        actual: { input: 37, output: 30 },
        reason: expect.stringContaining('users:2'),
      },
    ]);
    const script = await verifyScript(ledger);
    expect(script.code).toBe(1);
    expect(script.report).toMatchObject({
      valid: false,
      mismatchCount: 1,
      mismatches: [{ kind: 'VOLUME_MISMATCH', account: 'users:2', asset: 'USD/2' }],
    });
  }, 60_000);

  it('names a deleted volume row and a volume row of an account no log moves', async () => {
    const ledger = await buildLedger('state-volume-rows');
    await db('ledger_volumes').where({ ledger, address: 'users:3', asset: 'USD/2' }).delete();
    await db('ledger_volumes').insert({ ledger, address: 'users:8', asset: 'USD/2', input: 50, output: 0 });
    const result = await verify(ledger);
    expect(result.mismatches).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'VOLUME_MISMATCH', account: 'users:3', asset: 'USD/2', expected: { input: 20, output: 0 }, actual: null }),
        expect.objectContaining({
          kind: 'VOLUME_MISMATCH',
          account: 'users:8',
          asset: 'USD/2',
          expected: { input: 0, output: 0 },
          actual: { input: 50, output: 0 },
        }),
      ]),
    );
    expect(result.mismatchCount).toBe(2);
  }, 60_000);

  it('names changed account metadata and changed transaction metadata', async () => {
    const ledger = await buildLedger('state-metadata');
    await db('ledger_accounts')
      .where({ ledger, address: 'users:3' })
      .update({ metadata: db.raw(`'{"tier":"gold"}'::jsonb`) });
    await db('ledger_accounts').where({ ledger, address: 'users:9' }).delete();
    await db('ledger_transactions')
      .where({ ledger, id: 0 })
      .update({ metadata: db.raw(`metadata || '{"note":"x"}'::jsonb`) });
    const result = await verify(ledger);
    expect(result.valid).toBe(false);
    expect(result.mismatchCount).toBe(3);
    expect(result.mismatches).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'METADATA_MISMATCH', account: 'users:3', expected: { tier: 'silver' }, actual: { tier: 'gold' } }),
        expect.objectContaining({ kind: 'METADATA_MISMATCH', account: 'users:9', expected: { owner: 'nobody' }, actual: null }),
        expect.objectContaining({
          kind: 'METADATA_MISMATCH',
          transactionId: 0,
          logId: 0,
          field: 'metadata',
          expected: { order: 'o-1', batch: 'b-7' },
          actual: { order: 'o-1', batch: 'b-7', note: 'x' },
        }),
      ]),
    );
  }, 60_000);

  it('names a changed posting, a lost revert mark and a deleted transaction row', async () => {
    const ledger = await buildLedger('state-transaction');
    await db('ledger_transactions')
      .where({ ledger, id: 3 })
      .update({ postings: db.raw(`'[{"source":"world","destination":"users:2","amount":500,"asset":"EUR/2"}]'::json`) });
    await db('ledger_transactions').where({ ledger, id: 1 }).update({ reverted_at: null });
    await db('ledger_transactions').where({ ledger, id: 2 }).delete();
    const result = await verify(ledger);
    expect(result.mismatchCount).toBe(3);
    expect(result.mismatches).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'TRANSACTION_MISMATCH',
          transactionId: 3,
          logId: 7,
          field: 'postings',
          expected: [{ source: 'world', destination: 'users:2', amount: 5, asset: 'EUR/2' }],
          actual: [{ source: 'world', destination: 'users:2', amount: 500, asset: 'EUR/2' }],
        }),
        expect.objectContaining({ kind: 'TRANSACTION_MISMATCH', transactionId: 1, logId: 1, field: 'reverted', expected: true, actual: false }),
        expect.objectContaining({ kind: 'TRANSACTION_MISMATCH', transactionId: 2, logId: 2, expected: 2, actual: null }),
      ]),
    );
  }, 60_000);

  it('names a deleted log as a sequence gap, with the state it no longer explains', async () => {
    const ledger = await buildLedger('state-log-deleted');
    await db('ledger_logs').where({ ledger, id: 7 }).delete();
    const result = await verify(ledger);
    expect(result).toMatchObject({ valid: false, logs: 9, firstBroken: { id: 8 } });
    expect(result.mismatches).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'SEQUENCE_GAP', logId: 7, expected: 7, actual: 8 }),
        // The transaction log 7 created is stored with its volumes, which no log explains any more.
        expect.objectContaining({ kind: 'SEQUENCE_GAP', logId: 8, expected: 3, actual: 4 }),
        expect.objectContaining({ kind: 'TRANSACTION_MISMATCH', transactionId: 3, expected: null, actual: 3 }),
        expect.objectContaining({
          kind: 'VOLUME_MISMATCH',
          account: 'users:2',
          asset: 'EUR/2',
          expected: { input: 0, output: 0 },
          actual: { input: 5, output: 0 },
        }),
      ]),
    );
    expect(result.mismatches.some((m: { kind: string }) => m.kind === 'HASH_MISMATCH')).toBe(false);
  }, 60_000);

  it('names an edited log payload as a hash mismatch, with the state that differs from its replay', async () => {
    const ledger = await buildLedger('state-log-edited');
    await db.raw(`UPDATE ledger_logs SET data = jsonb_set(data, '{transaction,postings,0,amount}', '60') WHERE ledger = ? AND id = 1`, [ledger]);
    const result = await verify(ledger);
    expect(result).toMatchObject({ valid: false, firstBroken: { id: 1 } });
    expect(result.mismatches).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'HASH_MISMATCH', logId: 1, reason: expect.stringContaining('does not verify') }),
        expect.objectContaining({ kind: 'TRANSACTION_MISMATCH', transactionId: 1, field: 'postings' }),
        // The replay moves 60 to users:2, and the revert's own log moves 30 back.
        expect.objectContaining({
          kind: 'VOLUME_MISMATCH',
          account: 'users:2',
          asset: 'USD/2',
          expected: { input: 60, output: 30 },
          actual: { input: 30, output: 30 },
        }),
      ]),
    );
    const script = await verifyScript(ledger);
    expect(script.code).toBe(1);
    expect(script.report.mismatches.map((m: { kind: string }) => m.kind)).toContain('HASH_MISMATCH');
  }, 60_000);
});
