import pg from 'pg';
import { getTransaction, getTransactionJson, v1TransactionView, v2TransactionView } from '../../../areas/ledger';
import { stringifyJson } from '../../../lib/json';
import { headJsonSql } from '../../../areas/ledger/reads/transaction-json';
import { api } from '../../support/http';
import { ApiError } from '../../../lib/errors';
import { createDb, type Db } from '../../../db/knex';
import { pollUntil } from '../../support/eventually';
import { newLedger, posting, postTransaction } from '../../support/ledger';

describe('reads by txid share statements', () => {
  let db: Db;
  let statements: string[];
  /** The distinct shared statements sent (one per projection), with knex's `?` placeholders. */
  const shared = new Set<string>();
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 4 });
    statements = [];
    db.on('query', (query: { sql: string }) => {
      statements.push(query.sql);
      if (query.sql.includes('generate_subscripts')) shared.add(query.sql);
    });
  });
  afterAll(() => db.destroy());

  it('answers concurrent reads of several ledgers, misses included, each with its own transaction, in fewer statements', async () => {
    const first = await newLedger('reads-a');
    const second = await newLedger('reads-b');
    for (let i = 0; i < 10; i++) await postTransaction(first, { postings: [posting('world', `a:${i}`, i + 1)], metadata: { n: String(i) } });
    for (let i = 0; i < 5; i++) await postTransaction(second, { postings: [posting('world', `b:${i}`, 100 + i)] });
    statements.length = 0;

    const reads = [
      ...Array.from({ length: 10 }, (_, i) => ({ ledger: first, id: BigInt(i) })),
      ...Array.from({ length: 5 }, (_, i) => ({ ledger: second, id: BigInt(i) })),
      { ledger: second, id: 7n }, // a miss in an existing ledger
      { ledger: `${first}-missing`, id: 0n }, // a miss in no ledger
    ];
    const outcomes = await Promise.allSettled(reads.map((read) => getTransaction(db, read.ledger, read.id)));

    for (let i = 0; i < 10; i++) {
      const outcome = outcomes[i];
      expect(outcome.status).toBe('fulfilled');
      const tx = (outcome as PromiseFulfilledResult<Awaited<ReturnType<typeof getTransaction>>>).value;
      expect(tx.id).toBe(BigInt(i));
      expect(tx.ledger).toBe(first);
      expect(tx.postings).toEqual([{ source: 'world', destination: `a:${i}`, amount: BigInt(i + 1), asset: 'USD/2' }]);
      expect(tx.metadata).toEqual({ n: String(i) });
      expect(tx.postCommitVolumes[`a:${i}`]['USD/2']).toEqual({ input: BigInt(i + 1), output: 0n, balance: BigInt(i + 1) });
    }
    for (let i = 0; i < 5; i++) {
      const tx = (outcomes[10 + i] as PromiseFulfilledResult<Awaited<ReturnType<typeof getTransaction>>>).value;
      expect([tx.ledger, tx.id, tx.postings[0].amount]).toEqual([second, BigInt(i), BigInt(100 + i)]);
    }
    const [miss, noLedger] = outcomes.slice(15).map((o) => (o as PromiseRejectedResult).reason as ApiError);
    expect([miss.code, miss.status]).toEqual(['NOT_FOUND', 404]);
    expect([noLedger.code, noLedger.status]).toEqual(['LEDGER_NOT_FOUND', 404]);

    // 17 reads asked in one turn: one shared statement, plus the two ledger lookups that name the misses.
    const reads17 = statements.filter((sql) => sql.includes('generate_subscripts'));
    expect(reads17).toHaveLength(1);
    expect(statements).toHaveLength(3);
  });

  it('gives reads of the same txid in one statement their own objects', async () => {
    const ledger = await newLedger('reads-same');
    await postTransaction(ledger, { postings: [posting('world', 'x', 5)], metadata: { k: 'v' } });
    const [one, two] = await Promise.all([getTransaction(db, ledger, 0n), getTransaction(db, ledger, 0n)]);
    one.metadata.k = 'changed';
    one.postings[0].amount = 1n;
    expect(two.metadata).toEqual({ k: 'v' });
    expect(two.postings[0].amount).toBe(5n);
  });

  it('sees every write acknowledged before the read was asked, and a transaction its own rows', async () => {
    const ledger = await newLedger('reads-fresh');
    for (let i = 0; i < 20; i++) {
      const { body } = await postTransaction(ledger, { postings: [posting('world', 'y', 1)] });
      // Asked while other reads of this ledger are in flight: still answered by a statement sent after the write.
      const [tx] = await Promise.all([getTransaction(db, ledger, BigInt(body.data.id)), getTransaction(db, ledger, 0n)]);
      expect(tx.id).toBe(BigInt(i));
      expect(tx.postCommitVolumes.y['USD/2'].input).toBe(BigInt(i + 1));
    }
    await db
      .transaction(async (trx) => {
        await trx('ledger_transactions')
          .where({ ledger, id: 0 })
          .update({ metadata: { inside: 'yes' } });
        expect((await getTransaction(trx, ledger, 0n)).metadata).toEqual({ inside: 'yes' });
        await trx.rollback();
      })
      .catch(() => undefined);
    expect((await getTransaction(db, ledger, 0n)).metadata).toEqual({});
  });

  it('writes in PostgreSQL the exact JSON text of the v1 and v2 views, whatever the transaction holds', async () => {
    const ledger = await newLedger('reads-json');
    const big = 2n ** 70n;
    await postTransaction(ledger, { postings: [posting('world', 'rich', big), posting('world', 'rich', 1, 'EUR/2')] });
    await postTransaction(ledger, {
      postings: [posting('rich', 'a:b', big - 1n), posting('rich', 'c', 1, 'EUR/2')],
      reference: 'ref "quoted" \\ back\nslash',
      metadata: { plain: 'v', quotes: 'say "hi"', unicode: 'é中😀', control: '\u0001\t\n', empty: '', '': 'empty key' },
    });
    await postTransaction(ledger, { postings: [posting('world', 'x', 0)] });
    expect((await api('POST', `/api/ledger/v2/${ledger}/transactions/2/revert`)).status).toBe(201);
    // Microseconds PostgreSQL keeps and a JS Date does not (an imported transaction may carry them).
    await db('ledger_transactions')
      .where({ ledger, id: 0 })
      .update({ timestamp: db.raw(`'2026-01-02T03:04:05.123987Z'::timestamptz`) });

    for (const id of [0n, 1n, 2n, 3n]) {
      const tx = await getTransaction(db, ledger, id);
      expect(await getTransactionJson(db, ledger, id, 'v2')).toBe(stringifyJson(v2TransactionView(tx)));
      expect(await getTransactionJson(db, ledger, id, 'v1')).toBe(stringifyJson(v1TransactionView(tx)));
    }
    // Both write paths (the batched one, and the revert's single one for txid 3) stored the timestamp and postings as
    // the very text a read writes out; the UPDATE of txid 0's timestamp cleared it (migration 022's trigger), so its
    // reads above wrote them out afresh.
    const heads = await db.raw(
      `SELECT id::int, json_head, json_head = ${headJsonSql('t.timestamp', 't.postings')} AS same FROM ledger_transactions t WHERE ledger = ? ORDER BY id`,
      [ledger],
    );
    expect(heads.rows.map((r: { id: number; same: boolean | null }) => [r.id, r.same])).toEqual([
      [0, null],
      [1, true],
      [2, true],
      [3, true],
    ]);
    expect(heads.rows[1].json_head).toMatch(/^"timestamp":"\d{4}-\d\d-\d\dT[\d:.]{12}Z","postings":\[\{"source":"rich"/);
    const reverted = await getTransaction(db, ledger, 2n);
    expect(reverted.reverted).toBe(true);
    expect((await getTransaction(db, ledger, 0n)).timestamp.toISOString()).toBe('2026-01-02T03:04:05.123Z');
    await expect(getTransactionJson(db, ledger, 9n, 'v2')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(getTransactionJson(db, `${ledger}-none`, 0n, 'v1')).rejects.toMatchObject({ code: 'LEDGER_NOT_FOUND' });

    // Through the API, as the SDKs read them.
    const v2 = await api('GET', `/api/ledger/v2/${ledger}/transactions/1`);
    expect(v2.status).toBe(200);
    expect(v2.headers.get('content-type')).toMatch(/^application\/json/);
    expect(v2.text).toBe(`{"data":${stringifyJson(v2TransactionView(await getTransaction(db, ledger, 1n)))}}`);
    const v1 = await api('GET', `/api/ledger/${ledger}/transactions/1`);
    expect(v1.body.data.txid).toBe(1);
    expect(v1.body.data.reference).toBe('ref "quoted" \\ back\nslash');

    // The reads take the stored text itself: a planted one comes back as it is.
    await db('ledger_transactions').where({ ledger, id: 1 }).update({ json_head: '"timestamp":"planted","postings":[]' });
    expect(await getTransactionJson(db, ledger, 1n, 'v1')).toMatch(/^\{"txid":1,"timestamp":"planted","postings":\[\],"reference":"ref /);
    expect(await getTransactionJson(db, ledger, 1n, 'v2')).toMatch(/^\{"id":1,"timestamp":"planted","postings":\[\],"reference":"ref /);
  });

  it('answers a read by txid with the very text its write was answered with', async () => {
    const ledger = await newLedger('reads-echo');
    // Accounts whose order as written (world first) is not jsonb's (shortest key first): the stored text keeps it.
    const written = await postTransaction(ledger, {
      postings: [posting('world', 'a:b', 2n ** 64n), posting('world', 'a:b', 5, 'EUR/2'), posting('a:b', 'treasury:long:name', 5, 'EUR/2')],
      metadata: { k: 'v' },
    });
    expect(written.status).toBe(200);
    const read = await api('GET', `/api/ledger/v2/${ledger}/transactions/0`);
    expect(read.text).toBe(written.text);
    expect(Object.keys(read.body.data.postCommitVolumes)).toEqual(['world', 'a:b', 'treasury:long:name']);
  });

  it('keeps one impossible read from failing the others that share its statement', async () => {
    const ledger = await newLedger('reads-poison');
    for (let i = 0; i < 5; i++) await postTransaction(ledger, { postings: [posting('world', `p:${i}`, i + 1)] });
    // A NUL byte PostgreSQL cannot store, and a txid beyond int64, each asked in the same turn as valid reads.
    const outcomes = await Promise.allSettled([
      ...[0n, 1n, 2n].map((id) => getTransaction(db, ledger, id)),
      getTransaction(db, `${ledger}\u0000`, 0n),
      getTransactionJson(db, ledger, 2n ** 64n, 'v2'),
      ...[3n, 4n].map((id) => getTransactionJson(db, ledger, id, 'v1')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled', 'fulfilled']);
    expect((outcomes[2] as PromiseFulfilledResult<{ id: bigint }>).value.id).toBe(2n);
    expect((outcomes[6] as PromiseFulfilledResult<string>).value).toContain('"txid":4');

    const responses = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => api('GET', `/api/ledger/v2/${ledger}/transactions/${i % 5}`)),
      api('GET', `/api/ledger/v2/${ledger}%00/transactions/1`),
      api('GET', `/api/ledger/${ledger}/transactions/18446744073709551616`),
    ]);
    expect(responses.slice(0, 8).map((r) => r.status)).toEqual(Array(8).fill(200));
    for (const bad of responses.slice(8)) {
      expect(bad.status).toBeGreaterThanOrEqual(400);
      expect(bad.status).toBeLessThan(500);
      expect(bad.body).toEqual({ errorCode: expect.any(String), errorMessage: expect.any(String) });
    }
  });

  it('keeps at most two shared statements in flight; reads asked meanwhile go together in the next one', async () => {
    const ledger = await newLedger('reads-overlap');
    const bulk = Array.from({ length: 20 }, (_, i) => ({ action: 'CREATE_TRANSACTION', data: { postings: [posting('world', `o:${i}`, i + 1)] } }));
    expect((await api('POST', `/api/ledger/v2/${ledger}/_bulk?atomic=true`, { body: bulk })).status).toBe(200);
    const pair = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 2 });
    // Reads per shared statement, in the order they were sent.
    const sent: number[] = [];
    pair.on('query', (query: { sql: string; bindings: unknown[][] }) => {
      if (query.sql.includes('generate_subscripts')) sent.push(query.bindings[1].length);
    });
    const sentCount = (count: number) =>
      pollUntil(
        () => sent.length,
        (n) => n >= count,
        { timeoutMs: 5000, intervalMs: 1, what: `${count} statements sent` },
      );
    const asked: Array<Promise<unknown>> = [];
    const read = (ids: number[]) => {
      const reads = ids.map((id) => getTransaction(pair, ledger, BigInt(id)));
      asked.push(...reads);
      return reads;
    };
    // While it holds this lock, the statements that run wait for it in PostgreSQL, so they stay in flight.
    const locker = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await locker.connect();
    // Never queued for long behind another session's lock: a LOCK waiting for one would hold up every reader and writer.
    await locker.query("SET lock_timeout = '5s'");
    const lockTransactions = async () => {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE ledger_transactions IN ACCESS EXCLUSIVE MODE');
    };
    try {
      expect((await getTransaction(pair, ledger, 0n)).id).toBe(0n);
      sent.length = 0;

      await lockTransactions();
      const first = read([1]);
      await sentCount(1);
      const second = read([2, 3, 4, 5, 6]);
      await sentCount(2);
      const waiting = read([7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]);
      // Two statements run: the third waits for one of them to answer, with every read asked meanwhile.
      await pollUntil(
        () => asked.length,
        (n) => n === 17,
        { timeoutMs: 1000, intervalMs: 1, what: 'the reads asked' },
      );
      expect(sent).toEqual([1, 5]);
      await locker.query('COMMIT');
      expect((await Promise.all([...first, ...second, ...waiting])).map((tx) => [tx.id, tx.postings[0].amount])).toEqual(
        Array.from({ length: 17 }, (_, i) => [BigInt(i + 1), BigInt(i + 2)]),
      );
      expect(sent).toEqual([1, 5, 11]);

      // A burst past a statement's 128 reads: what is left goes out beside the first statement.
      await lockTransactions();
      const burstIds = Array.from({ length: 150 }, (_, i) => i % 20);
      const burst = read(burstIds);
      await sentCount(5);
      expect(sent).toEqual([1, 5, 11, 128, 22]);
      await locker.query('COMMIT');
      expect((await Promise.all(burst)).map((tx) => tx.id)).toEqual(burstIds.map(BigInt));
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
      // Settled before the pool goes, so a failed assertion is not followed by reads failing on a destroyed pool.
      await Promise.allSettled(asked);
      await pair.destroy();
    }
  });

  it('runs each shared read with a plan that looks each read up on its own, even as a generic plan', async () => {
    const ledger = await newLedger('reads-plan');
    // Enough transactions that a ledger is not, to the planner, as selective as a txid: with one transaction per
    // ledger, an index on (ledger, timestamp) ties with the primary key and either may be picked.
    const bulk = Array.from({ length: 300 }, () => ({ action: 'CREATE_TRANSACTION', data: { postings: [posting('world', 'z', 1)] } }));
    expect((await api('POST', `/api/ledger/v2/${ledger}/_bulk?atomic=true`, { body: bulk })).status).toBe(200);
    await Promise.all([getTransaction(db, ledger, 0n), getTransactionJson(db, ledger, 0n, 'v1'), getTransactionJson(db, ledger, 0n, 'v2')]);
    // The row, v1 and v2 projections.
    expect(shared.size).toBe(3);

    // A plan made without knowing how many reads the arrays hold (a generic plan, as a pooler's prepared statement
    // would get) must still look each read up: on a table the planner thinks small, a plain join would hash a scan of
    // every transaction, and keep doing so as the table grows until its next analyze.
    await db.raw('ANALYZE ledger_transactions');
    await db.transaction(async (trx) => {
      await trx.raw('SET LOCAL plan_cache_mode = force_generic_plan');
      const genericPlan = async (sql: string) => {
        // knex's placeholders in order: the ids, the ledgers, the ids again.
        let n = 0;
        const numbered = sql.replace(/\?/g, () => `$${(n += 1)}`);
        await trx.raw(`PREPARE shared_read_plan (bigint[], text[], bigint[]) AS ${numbered}`);
        const plan = (await trx.raw(`EXPLAIN EXECUTE shared_read_plan(ARRAY[0::bigint], ARRAY['${ledger}'], ARRAY[0::bigint])`)).rows
          .map((r: Record<string, string>) => r['QUERY PLAN'])
          .join('\n');
        await trx.raw('DEALLOCATE shared_read_plan');
        return plan;
      };
      // A copy: the statements below go through the same knex instance, and its query listener.
      for (const sql of [...shared]) {
        const plan = await genericPlan(sql);
        expect(plan).toMatch(/^Nested Loop[^]*Function Scan on generate_subscripts k[^]*Limit/);
        expect(plan).not.toMatch(/Hash Join|Merge Join/);
        // On a table this small a scan may cost less; the lookup must still be one the primary key can answer, which
        // the planner picks as soon as the table is larger.
        await trx.raw('SET LOCAL enable_seqscan = off');
        expect(await genericPlan(sql)).toMatch(
          /Index (Only )?Scan using ledger_transactions_pkey[^]*Index Cond: \(\(ledger = \(\$2\)\[k\.i\]\) AND \(id = \(\$3\)\[k\.i\]\)\)/,
        );
        await trx.raw('SET LOCAL enable_seqscan = on');
      }
    });
  });
});
