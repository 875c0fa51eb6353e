import type { Knex } from 'knex';
import { commitWrites, type WriteOutcome } from '../../../areas/ledger/writes/write-pipeline';
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
