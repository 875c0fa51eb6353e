import type { Knex } from 'knex';
import { commitWrites, type WriteOutcome } from '../../../areas/ledger/writes/write-pipeline';
import { ABORTED, NOT_RUN, type WriteUnit } from '../../../areas/ledger/writes/write-units';
import { groupCommit } from '../../../areas/ledger/writes/group-commit';
import { createDb, type Db } from '../../../db/knex';
import { isDefined, pollUntil } from '../../support/eventually';
import { api } from '../../support/http';
import { ledgerViolations, logAndEventViolations } from '../../support/ledger-invariants';
import { newLedger, posting, postTransaction } from '../../support/ledger';

const usd = (source: string, destination: string, amount: bigint) => ({ source, destination, amount, asset: 'USD/2' });

describe('ledger group commit', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 4 });
  });
  afterAll(() => db.destroy());

  it('gives each write of one batch its own outcome: failures leave their neighbours committed with exact volumes', async () => {
    const ledger = await newLedger('gc-batch');
    await postTransaction(ledger, { postings: [posting('world', 'payer', 10)], reference: 'taken' });
    const outcomes: WriteOutcome[] = await db.transaction((trx) =>
      commitWrites(trx, ledger, [
        { request: { postings: [usd('payer', 'a', 4n)] } },
        { request: { postings: [usd('payer', 'b', 7n)] } }, // 6 left after the first: refused
        { request: { postings: [usd('payer', 'c', 1n)], reference: 'taken' } },
        { request: { postings: [usd('payer', 'd', 6n)], reference: 'fresh' } },
        { request: { postings: [usd('world', 'e', 1n)], reference: 'fresh' } }, // taken by the write before it
        { request: { script: { plain: 'send [USD/2 1] (source = @payer destination = @f)', vars: {} } } }, // payer is empty now
        { request: { script: { plain: 'send [USD/2 3] (source = @world destination = @payer)', vars: {} } }, idempotencyKey: 'gc-key' },
        { request: { postings: [usd('payer', 'g', 3n)] } }, // spends what the script above brought
      ]),
    );
    const summary = outcomes.map((o) => ('transaction' in o ? `tx ${o.transaction.id}` : 'error' in o ? (o.error as { code?: string }).code : 'hit'));
    expect(summary).toEqual(['tx 1', 'INSUFFICIENT_FUND', 'CONFLICT', 'tx 2', 'CONFLICT', 'INSUFFICIENT_FUND', 'tx 3', 'tx 4']);
    const tx4 = (outcomes[7] as { transaction: { preCommitVolumes: any; postCommitVolumes: any } }).transaction;
    expect(tx4.preCommitVolumes.payer['USD/2']).toEqual({ input: 13n, output: 10n, balance: 3n });
    expect(tx4.postCommitVolumes.payer['USD/2']).toEqual({ input: 13n, output: 13n, balance: 0n });

    const payer = await api('GET', `/api/ledger/v2/${ledger}/accounts/payer?expand=volumes`);
    expect(payer.body.data.volumes['USD/2']).toEqual({ input: 13, output: 13, balance: 0 });
    const xmins = await db('ledger_transactions').where({ ledger }).where('id', '>', 0).distinct(db.raw('xmin::text'));
    expect(xmins).toHaveLength(1);
    expect(await ledgerViolations(db, ledger)).toEqual([]);
    expect(await logAndEventViolations(db, ledger)).toEqual([]);

    // The key of the committed script is stored: the same request again is a hit, another one a conflict.
    const again = await db.transaction((trx) =>
      commitWrites(trx, ledger, [
        { request: { script: { plain: 'send [USD/2 3] (source = @world destination = @payer)', vars: {} } }, idempotencyKey: 'gc-key' },
        { request: { postings: [usd('world', 'payer', 1n)] }, idempotencyKey: 'gc-key-2' },
      ]),
    );
    // ...answered with its txid and its log's id, from the key's stored answer.
    expect(again[0]).toEqual({ hitTxid: 3n, hitLogId: (outcomes[6] as { logId: bigint }).logId });
    expect('transaction' in again[1]).toBe(true);
  });

  it("holds each bulk's unit to its own rules in a shared batch: an atomic one writes all or nothing, a stopping one stops alone", async () => {
    const ledger = await newLedger('gc-units');
    await postTransaction(ledger, { postings: [posting('world', 'payer', 10)] });
    const atomic: WriteUnit = { atomic: true };
    const stopping: WriteUnit = { stopAtFirstRefusal: true };
    const outcomes: WriteOutcome[] = await db.transaction((trx) =>
      commitWrites(
        trx,
        ledger,
        [
          { request: { postings: [usd('payer', 'a', 2n)] } },
          { request: { postings: [usd('payer', 'b', 5n)] } }, // atomic unit: accepted, 3 left
          { request: { postings: [usd('world', 'payer', 1n)] }, idempotencyKey: 'unit-a' }, // accepted, 4 left
          { request: { postings: [usd('payer', 'c', 9n)] } }, // refused: the unit writes none of its writes
          { request: { postings: [usd('payer', 'd', 8n)] } }, // refused while the unit held 5 of payer's 8; checked again without it
          { request: { postings: [usd('world', 'payer', 3n)] } }, // stopping unit: accepted
          { request: { postings: [usd('payer', 'e', 5n)] } }, // refused: 3 left
          { request: { postings: [usd('world', 'f', 1n)] } }, // not run: after its unit's refusal
          { request: { postings: [usd('payer', 'g', 3n)] } }, // a neighbour: spends what the stopping unit brought
        ],
        { units: [undefined, atomic, atomic, atomic, undefined, stopping, stopping, stopping, undefined] },
      ),
    );
    const summary = outcomes.map((o) =>
      'transaction' in o
        ? `tx ${o.transaction.id}`
        : 'error' in o
          ? o.error === ABORTED
            ? 'ABORTED'
            : o.error === NOT_RUN
              ? 'NOT_RUN'
              : (o.error as { code?: string }).code
          : 'hit',
    );
    expect(summary).toEqual(['tx 1', 'ABORTED', 'ABORTED', 'INSUFFICIENT_FUND', 'tx 2', 'tx 3', 'INSUFFICIENT_FUND', 'NOT_RUN', 'tx 4']);
    const payer = await api('GET', `/api/ledger/v2/${ledger}/accounts/payer?expand=volumes`);
    expect(payer.body.data.volumes['USD/2']).toEqual({ input: 13, output: 13, balance: 0 });
    // Nothing moved for the unit's accounts (a refused write may leave an empty volume row behind, as in any batch).
    for (const account of ['b', 'c', 'f']) {
      const { body } = await api('GET', `/api/ledger/v2/${ledger}/accounts/${account}?expand=volumes`);
      expect(body.data.volumes?.['USD/2'] ?? { input: 0, output: 0, balance: 0 }).toEqual({ input: 0, output: 0, balance: 0 });
    }
    // The aborted unit's key is free again, as its rollback would have left it.
    expect(
      await db('idempotency_keys')
        .where({ scope: `ledger/${ledger}/transactions`, key: 'unit-a' })
        .count({ n: '*' }),
    ).toEqual([{ n: '0' }]);
    expect(await ledgerViolations(db, ledger)).toEqual([]);
    expect(await logAndEventViolations(db, ledger)).toEqual([]);
  });

  it('refuses a batch whose atomic unit could not be undone by checking it again: a script beside it, or a unit of more than plain postings', async () => {
    const ledger = await newLedger('gc-units-guard');
    const script = { request: { script: { plain: 'send [USD/2 1] (source = @world destination = @a)', vars: {} } } };
    const plain = { request: { postings: [usd('world', 'b', 1n)] } };
    // A script's check writes the account metadata it sets: checked again without the aborted unit, a refused script's
    // metadata would stay. The group commit never batches them together; the pipeline refuses a caller that does.
    await expect(db.transaction((trx) => commitWrites(trx, ledger, [plain, script], { units: [{ atomic: true }, undefined] }))).rejects.toThrow(
      /write 1: a batch with an atomic unit takes plain postings in its atomic units and no script/,
    );
    await expect(
      db.transaction((trx) => commitWrites(trx, ledger, [plain, script], { units: [{ atomic: true }, { atomic: true }] })),
    ).rejects.toThrow(/write 1: /);
    expect(await db('ledger_transactions').where({ ledger }).count({ n: '*' })).toEqual([{ n: '0' }]);
  });

  it('releases the Idempotency-Key of a write that failed in its batch', async () => {
    const ledger = await newLedger('gc-key');
    const [failed] = await db.transaction((trx) =>
      commitWrites(trx, ledger, [{ request: { postings: [usd('nobody', 'x', 1n)] }, idempotencyKey: 'retry-me' }]),
    );
    expect((failed as { error: { code: string } }).error.code).toBe('INSUFFICIENT_FUND');
    expect(
      await db('idempotency_keys')
        .where({ scope: `ledger/${ledger}/transactions`, key: 'retry-me' })
        .count({ n: '*' }),
    ).toEqual([{ n: '0' }]);
    await postTransaction(ledger, { postings: [posting('world', 'nobody', 1)] });
    const retried = await postTransaction(ledger, { postings: [posting('nobody', 'x', 1)] }, { 'Idempotency-Key': 'retry-me' });
    expect(retried.status).toBe(200);
  });

  it('coalesces concurrent HTTP writes into shared database transactions, hot account or not, with every invariant intact', async () => {
    const ledger = await newLedger('gc-http');
    await postTransaction(ledger, { postings: [posting('world', 'hot', 1000)] });
    const results = await Promise.all(
      Array.from({ length: 96 }, (_, i) => {
        const source = i % 3 === 0 ? 'world' : 'hot';
        const destination = i % 2 === 0 ? 'sink' : `user:${i}`;
        const amount = i % 16 === 5 ? 5000 : 7; // every sixteenth one is more than the hot account ever holds
        return postTransaction(ledger, { postings: [posting(source, destination, amount)], reference: `r${i % 48}` });
      }),
    );
    const refusedFunds = results.filter((r) => r.body.errorCode === 'INSUFFICIENT_FUND').length;
    const refusedReference = results.filter((r) => r.body.errorCode === 'CONFLICT').length;
    const committed = results.filter((r) => r.status === 200).length;
    expect(committed + refusedFunds + refusedReference).toBe(96);
    expect(committed).toBeLessThanOrEqual(48); // 48 distinct references
    expect(refusedFunds).toBeGreaterThan(0);
    const count = await db('ledger_transactions').where({ ledger }).count({ n: '*' });
    expect(Number(count[0].n)).toBe(committed + 1);
    const batches = await db('ledger_transactions')
      .where({ ledger })
      .countDistinct({ n: db.raw('xmin::text') });
    expect(Number(batches[0].n)).toBeLessThan(committed + 1);
    expect(await ledgerViolations(db, ledger)).toEqual([]);
    expect(await logAndEventViolations(db, ledger)).toEqual([]);
  });

  it('takes single metadata writes into the ledger batch: one database transaction, walked in arrival order with its transactions', async () => {
    const ledger = await newLedger('gc-metadata');
    // Alone in its batch (an idle ledger commits at once); the writes sent meanwhile form the next batch.
    const first = groupCommit(db, ledger, { request: { postings: [usd('world', 'a', 1n)] } });
    const batch = [
      groupCommit(db, ledger, { request: { postings: [usd('world', 'b', 2n)] } }),
      // Transaction 1 is created by the write before it: it is annotated in the batch's next round.
      groupCommit(db, ledger, { target: { type: 'TRANSACTION', id: 1n }, change: { set: { note: 'annotated' } } }),
      groupCommit(db, ledger, { target: { type: 'ACCOUNT', id: 'b' }, change: { set: { tier: 'gold', kyc: 'done' } } }),
      groupCommit(db, ledger, { target: { type: 'ACCOUNT', id: 'b' }, change: { delete: 'tier' } }),
      // Deleted by the write before it: nothing to delete, no log.
      groupCommit(db, ledger, { target: { type: 'ACCOUNT', id: 'b' }, change: { delete: 'tier' } }),
      groupCommit(db, ledger, { target: { type: 'TRANSACTION', id: 9n }, change: { set: { a: 'b' } } }),
      groupCommit(db, ledger, { target: { type: 'ACCOUNT', id: 'c' }, change: { set: { new: 'account' } } }),
    ];
    expect(await first).toMatchObject({ transaction: { id: 0n }, logId: 0n });
    const outcomes = await Promise.all(batch);
    expect(outcomes.slice(0, 5)).toEqual([
      expect.objectContaining({ transaction: expect.objectContaining({ id: 1n }), logId: 1n }),
      { metadata: true, logId: 2n },
      { metadata: true, logId: 3n },
      { metadata: true, logId: 4n },
      { metadata: true },
    ]);
    expect((outcomes[5] as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'NOT_FOUND',
      message: `transaction 9 not found in ledger "${ledger}"`,
    });
    expect(outcomes[6]).toEqual({ metadata: true, logId: 5n });

    const logs = await db('ledger_logs').where({ ledger }).orderBy('id').select('id', 'type', db.raw('xmin::text AS xmin'));
    expect(logs.map((l) => [Number(l.id), l.type])).toEqual([
      [0, 'NEW_TRANSACTION'],
      [1, 'NEW_TRANSACTION'],
      [2, 'SET_METADATA'],
      [3, 'SET_METADATA'],
      [4, 'DELETE_METADATA'],
      [5, 'SET_METADATA'],
    ]);
    expect(new Set(logs.slice(1).map((l) => l.xmin)).size).toBe(1);
    expect(logs[0].xmin).not.toBe(logs[1].xmin);
    const events = await db('events_outbox').whereRaw(`payload::jsonb->>'ledger' = ?`, [ledger]).orderBy('seq').select('type', 'payload');
    expect(events.map((e) => [e.type, JSON.parse(e.payload).targetId])).toEqual([
      ['COMMITTED_TRANSACTIONS', undefined],
      ['COMMITTED_TRANSACTIONS', undefined],
      ['SAVED_METADATA', 1],
      ['SAVED_METADATA', 'b'],
      ['DELETED_METADATA', 'b'],
      ['SAVED_METADATA', 'c'],
    ]);
    expect((await db('ledger_transactions').where({ ledger, id: '1' }).first('metadata')).metadata).toEqual({ note: 'annotated' });
    const accounts = await db('ledger_accounts').where({ ledger }).whereIn('address', ['b', 'c']).orderBy('address').select('address', 'metadata');
    expect(accounts).toEqual([
      { address: 'b', metadata: { kyc: 'done' } },
      { address: 'c', metadata: { new: 'account' } },
    ]);
    expect(await ledgerViolations(db, ledger)).toEqual([]);
    expect(await logAndEventViolations(db, ledger)).toEqual([]);
  });

  it('answers a committed batch even while the next batch cannot get a connection', async () => {
    const ledger = await newLedger('gc-held');
    const single = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 1 });
    let trx: Knex.Transaction | undefined;
    try {
      const first = groupCommit(single, ledger, { request: { postings: [usd('world', 'a', 1n)] } });
      // Asked for after the first batch's connection, so the pool hands the only connection to this transaction when
      // that batch commits, and the second batch waits for it: the first batch's answers must not wait with it.
      const blocking = single.transaction();
      const second = groupCommit(single, ledger, { request: { postings: [usd('world', 'b', 2n)] } });
      let secondSettled = false;
      void second.finally(() => (secondSettled = true));
      let answered: unknown;
      void first.then(
        (outcome) => (answered = outcome),
        (error: unknown) => (answered = error),
      );
      trx = await blocking;
      // The only connection stays with `trx` until the commit below, so the second batch cannot settle before it; the
      // first one's answer must come meanwhile (the bound only turns a held answer into a failure with a message).
      await pollUntil(() => answered, isDefined, { intervalMs: 20, what: "the first batch's answer while the next batch waits" });
      expect(answered).toMatchObject({ transaction: { postings: [{ destination: 'a', amount: 1n }] }, idempotencyHit: false });
      expect(secondSettled).toBe(false);
      await trx.commit();
      expect(await second).toMatchObject({ transaction: { postings: [{ destination: 'b', amount: 2n }] } });
      expect(await ledgerViolations(db, ledger)).toEqual([]);
    } finally {
      if (trx && !trx.isCompleted()) await trx.rollback();
      await single.destroy();
    }
  });
});
