import { createDb, type Db } from '../../../db/knex';
import {
  addAccountMetadata,
  addTransactionMetadata,
  deleteAccountMetadata,
  deleteTransactionMetadata,
  runBulk,
  settleHold,
} from '../../../areas/ledger';
import { holdAccount, WALLETS_LEDGER } from '../../../areas/wallets/chart';
import { holdRows } from '../../../areas/wallets/hold-rows';
import { getHold } from '../../../areas/wallets';
import { newLedger, posting, postTransaction } from '../../support/ledger';
import { credit, debit, mainBalance, newWallet } from '../../support/wallets';

/** The statements `work` sends through `db`, in order (BEGIN and COMMIT included). */
async function statementsOf(db: Db, work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (query: { sql: string }) => seen.push(query.sql.replace(/\s+/g, ' ').trim());
  db.on('query', listener);
  try {
    await work();
  } finally {
    db.off('query', listener);
  }
  return seen;
}

describe('the write kinds of the ledger write pipeline', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 4 });
  });
  afterAll(() => db.destroy());

  const logsOf = async (ledger: string) =>
    (await db('ledger_logs').where({ ledger }).orderBy('id').select('id', 'type', 'data')).map((l) => ({
      id: BigInt(l.id),
      type: l.type,
      data: l.data,
    }));
  const eventsOf = async (ledger: string) =>
    (await db('events_outbox').whereRaw(`payload::jsonb->>'ledger' = ?`, [ledger]).orderBy('seq').select('type', 'payload')).map((e) => ({
      type: e.type,
      payload: JSON.parse(e.payload),
    }));

  /** What each statement of a single write's database transaction does, from its BEGIN (the pipeline's statements). */
  const stepsOf = (statements: string[]) =>
    statements.slice(statements.indexOf('BEGIN;')).map((sql) => {
      if (sql === 'BEGIN;' || sql === 'COMMIT;') return sql;
      if (/^SELECT .* FROM ledger_accounts .* FOR UPDATE$/.test(sql)) return 'lock accounts';
      if (/^SELECT .* FROM ledger_transactions .* FOR UPDATE$/.test(sql)) return 'lock transactions';
      if (/^WITH v AS \( UPDATE ledger_volumes .* UPDATE ledgers SET next_txid/.test(sql)) return 'take ids';
      if (/INSERT INTO ledger_logs .*INSERT INTO events_outbox/.test(sql)) return 'write rows';
      return sql;
    });

  it('a metadata write is a batch of one of the pipeline: it appends its log, emits its event and answers its log id; an absent key changes nothing', async () => {
    const ledger = await newLedger('kinds');
    expect((await postTransaction(ledger, { postings: [posting('world', 'alice', 5)] })).status).toBe(200);

    let logId: bigint | undefined;
    const statements = await statementsOf(db, async () => {
      logId = await addAccountMetadata(db, ledger, 'alice', { tier: 'gold' });
    });
    // The ledger's writability check, then the batch: the account locked, the log id taken with one bump of the ledger
    // row, one statement for the account, the log and the event; each table written by one statement.
    expect(stepsOf(statements)).toEqual(['BEGIN;', 'lock accounts', 'take ids', 'write rows', 'COMMIT;']);
    expect(statements.filter((sql) => /ledger_logs/.test(sql))).toHaveLength(1);
    expect(statements.filter((sql) => /events_outbox/.test(sql))).toHaveLength(1);
    expect(logId).toBe(1n);

    const onTransaction = await statementsOf(db, async () => {
      logId = await addTransactionMetadata(db, ledger, 0n, { invoice: 'i-1' });
    });
    expect(stepsOf(onTransaction)).toEqual(['BEGIN;', 'lock transactions', 'take ids', 'write rows', 'COMMIT;']);
    expect(logId).toBe(2n);
    expect(await deleteAccountMetadata(db, ledger, 'alice', 'tier')).toBe(3n);
    // A key that is not there: nothing to write, so neither the ledger row nor any table is touched.
    const absent = await statementsOf(db, async () => {
      logId = await deleteAccountMetadata(db, ledger, 'alice', 'tier');
    });
    expect(stepsOf(absent)).toEqual(['BEGIN;', 'lock accounts', 'COMMIT;']);
    expect(logId).toBeUndefined();
    expect(await deleteAccountMetadata(db, ledger, 'nobody', 'tier')).toBeUndefined();
    expect(await deleteTransactionMetadata(db, ledger, 0n, 'absent')).toBeUndefined();
    expect(await deleteTransactionMetadata(db, ledger, 0n, 'invoice')).toBe(4n);
    await expect(addTransactionMetadata(db, ledger, 9n, { a: 'b' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(deleteTransactionMetadata(db, ledger, 9n, 'a')).rejects.toMatchObject({ code: 'NOT_FOUND' });

    expect((await logsOf(ledger)).map((l) => [l.id, l.type, l.data])).toEqual([
      [0n, 'NEW_TRANSACTION', expect.anything()],
      [1n, 'SET_METADATA', { targetType: 'ACCOUNT', targetId: 'alice', metadata: { tier: 'gold' } }],
      [2n, 'SET_METADATA', { targetType: 'TRANSACTION', targetId: 0, metadata: { invoice: 'i-1' } }],
      [3n, 'DELETE_METADATA', { targetType: 'ACCOUNT', targetId: 'alice', key: 'tier' }],
      [4n, 'DELETE_METADATA', { targetType: 'TRANSACTION', targetId: 0, key: 'invoice' }],
    ]);
    expect((await eventsOf(ledger)).slice(1)).toEqual([
      { type: 'SAVED_METADATA', payload: { ledger, targetType: 'ACCOUNT', targetId: 'alice', metadata: { tier: 'gold' } } },
      { type: 'SAVED_METADATA', payload: { ledger, targetType: 'TRANSACTION', targetId: 0, metadata: { invoice: 'i-1' } } },
      { type: 'DELETED_METADATA', payload: { ledger, targetType: 'ACCOUNT', targetId: 'alice', key: 'tier' } },
      { type: 'DELETED_METADATA', payload: { ledger, targetType: 'TRANSACTION', targetId: 0, key: 'invoice' } },
    ]);
    const row = await db('ledger_accounts').where({ ledger, address: 'alice' }).first('metadata');
    expect(row.metadata).toEqual({});
    expect((await db('ledger_transactions').where({ ledger, id: '0' }).first('metadata')).metadata).toEqual({});
  });

  it("a bulk element replayed from its Idempotency-Key answers its first log id from the key's stored answer, without reading the logs", async () => {
    const ledger = await newLedger('kinds');
    const element = {
      action: 'CREATE_TRANSACTION' as const,
      ik: 'replayed',
      data: { postings: [{ source: 'world', destination: 'bob', amount: 3n, asset: 'USD/2' }] },
    };
    const first = await runBulk(db, ledger, [
      { action: 'ADD_METADATA', data: { targetType: 'ACCOUNT', targetId: 'bob', metadata: { a: '1' } } },
      element,
    ]);
    expect(first.results.map((r) => r.logID)).toEqual([0n, 1n]);
    let again: Awaited<ReturnType<typeof runBulk>> | undefined;
    const statements = await statementsOf(db, async () => {
      again = await runBulk(db, ledger, [element]);
    });
    expect(again!.results).toEqual([expect.objectContaining({ responseType: 'CREATE_TRANSACTION', logID: 1n })]);
    expect(statements.filter((sql) => /ledger_logs/.test(sql))).toEqual([]);
    expect((await logsOf(ledger)).map((l) => l.id)).toEqual([0n, 1n]);
  });

  it("a hold's settle is typed input and output: the transaction, its log id and what it settled", async () => {
    const wallet = await newWallet();
    await credit(wallet, 10);
    const holdId = (await debit(wallet, 6, { pending: true })).body.data.id as string;
    const settle = (plan: (remaining: bigint) => { amount: bigint; close: boolean }) =>
      settleHold(db, WALLETS_LEDGER, {
        holdId,
        held: { account: holdAccount(holdId), asset: 'USD/2' },
        pairs: [['world', 'USD/2']],
        metadata: { purpose: 'test' },
        rows: holdRows,
        plan(hold) {
          if (hold.status !== 'open') throw new Error(`hold is ${hold.status}`);
          const { amount, close } = plan(hold.remaining);
          return { postings: [{ source: holdAccount(holdId), destination: 'world', amount, asset: 'USD/2' }], close };
        },
      });

    const partial = await settle(() => ({ amount: 2n, close: false }));
    expect(partial.settled).toEqual({ held: 6n, closed: false });
    expect(partial.transaction.postings).toEqual([{ source: holdAccount(holdId), destination: 'world', amount: 2n, asset: 'USD/2' }]);
    const log = await db('ledger_logs').where({ ledger: WALLETS_LEDGER, id: partial.logId.toString() }).first('type', 'data');
    expect(log).toMatchObject({ type: 'NEW_TRANSACTION', data: { transaction: { id: Number(partial.transaction.id) } } });
    expect(await getHold(db, holdId)).toMatchObject({ remaining: 4n, closed: false });

    const last = await settle((remaining) => ({ amount: remaining, close: true }));
    expect(last.settled).toEqual({ held: 4n, closed: true });
    expect(last.logId).toBeGreaterThan(partial.logId);
    expect(await getHold(db, holdId)).toMatchObject({ remaining: 0n, closed: true });
    await expect(settle(() => ({ amount: 1n, close: true }))).rejects.toThrow('hold is closed');
    expect(await mainBalance(wallet)).toBe(4);
  });
});
