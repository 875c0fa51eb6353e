import pg from 'pg';
import { getTransaction, getTransactionJson, v1TransactionView, v2TransactionView } from '../../../areas/ledger';
import { stringifyJson } from '../../../lib/json';
import { headJsonSql } from '../../../areas/ledger/transaction-json';
import { api } from '../../support/http';
import { ApiError } from '../../../lib/errors';
import { createDb, type Db } from '../../../db/knex';
import { pipelinedRows } from '../../../db/pipelined-statements';
import { pollUntil } from '../../support/eventually';
import { newLedger, posting, postTransaction } from '../../support/ledger';

describe('reads by txid share statements', () => {
  let db: Db;
  let statements: string[];
  const named = new Map<string, string>();
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 4 });
    statements = [];
    db.on('query', (query: { sql: string; name?: string }) => {
      statements.push(query.sql);
      if (query.name) named.set(query.name, query.sql);
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
    await db.transaction(async (trx) => {
      await trx('ledger_transactions').where({ ledger, id: 0 }).update({ metadata: { inside: 'yes' } });
      expect((await getTransaction(trx, ledger, 0n)).metadata).toEqual({ inside: 'yes' });
      await trx.rollback();
    }).catch(() => undefined);
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
    await db('ledger_transactions').where({ ledger, id: 0 }).update({ timestamp: db.raw(`'2026-01-02T03:04:05.123987Z'::timestamptz`) });

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

  it('sends a statement while another runs only when it carries 16 reads; fewer wait until none runs', async () => {
    const ledger = await newLedger('reads-overlap');
    const bulk = Array.from({ length: 20 }, (_, i) => ({ action: 'CREATE_TRANSACTION', data: { postings: [posting('world', `o:${i}`, i + 1)] } }));
    expect((await api('POST', `/api/ledger/v2/${ledger}/_bulk?atomic=true`, { body: bulk })).status).toBe(200);
    const single = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 1 });
    // Reads per shared statement, in the order they were sent.
    const sent: number[] = [];
    single.on('query', (query: { sql: string; bindings: unknown[][] }) => {
      if (query.sql.includes('generate_subscripts')) sent.push(query.bindings[1].length);
    });
    const sentCount = (count: number) => pollUntil(() => sent.length, (n) => n >= count, { timeoutMs: 5000, intervalMs: 1, what: `${count} statements sent` });
    const asked: Array<Promise<unknown>> = [];
    const read = (ids: number[]) => {
      const reads = ids.map((id) => getTransaction(single, ledger, BigInt(id)));
      asked.push(...reads);
      return reads;
    };
    // While it holds this lock, the statement that runs waits for it in PostgreSQL, so it stays in flight.
    const locker = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await locker.connect();
    // Never queued for long behind another session's lock: a LOCK waiting for one would hold up every reader and writer.
    await locker.query("SET lock_timeout = '5s'");
    const lockTransactions = async () => {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE ledger_transactions IN ACCESS EXCLUSIVE MODE');
    };
    try {
      expect((await getTransaction(single, ledger, 0n)).id).toBe(0n);
      sent.length = 0;

      await lockTransactions();
      const running = read([1]);
      await sentCount(1);
      const few = read([2, 3, 4, 5, 6]);
      // Proves a read is NOT sent yet: no event marks an absence, so a short window of quiet stands for it.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(sent).toEqual([1]);
      const enough = read([7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]);
      await sentCount(2);
      expect(sent).toEqual([1, 16]);
      await locker.query('COMMIT');
      expect((await Promise.all([...running, ...few, ...enough])).map((tx) => [tx.id, tx.postings[0].amount])).toEqual(
        Array.from({ length: 17 }, (_, i) => [BigInt(i + 1), BigInt(i + 2)]),
      );

      await lockTransactions();
      const runningAgain = read([0]);
      await sentCount(3);
      const waiting = read([18, 19, 2, 3, 4]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(sent).toEqual([1, 16, 1]);
      await locker.query('COMMIT');
      expect((await Promise.all([...runningAgain, ...waiting])).map((tx) => tx.id)).toEqual([0n, 18n, 19n, 2n, 3n, 4n]);
      // The five that waited went together, in the statement sent once the running one answered.
      expect(sent).toEqual([1, 16, 1, 5]);

      // A burst past a statement's 128 reads: what is left, 16 or more, goes out beside the first statement.
      await lockTransactions();
      const burstIds = Array.from({ length: 150 }, (_, i) => i % 20);
      const burst = read(burstIds);
      await sentCount(6);
      expect(sent).toEqual([1, 16, 1, 5, 128, 22]);
      await locker.query('COMMIT');
      expect((await Promise.all(burst)).map((tx) => tx.id)).toEqual(burstIds.map(BigInt));
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
      // Settled before the pool goes, so a failed assertion is not followed by reads failing on a destroyed pool.
      await Promise.allSettled(asked);
      await single.destroy();
    }
  });

  it('runs each shared read as a named statement, with a plan that looks each read up on its own', async () => {
    const ledger = await newLedger('reads-plan');
    // Enough transactions that a ledger is not, to the planner, as selective as a txid: with one transaction per
    // ledger, an index on (ledger, timestamp) ties with the primary key and either may be picked.
    const bulk = Array.from({ length: 300 }, () => ({ action: 'CREATE_TRANSACTION', data: { postings: [posting('world', 'z', 1)] } }));
    expect((await api('POST', `/api/ledger/v2/${ledger}/_bulk?atomic=true`, { body: bulk })).status).toBe(200);
    await Promise.all([getTransaction(db, ledger, 0n), getTransactionJson(db, ledger, 0n, 'v1'), getTransactionJson(db, ledger, 0n, 'v2')]);
    expect([...named.keys()].sort()).toEqual(['ledger-transaction-read-row', 'ledger-transaction-read-v1', 'ledger-transaction-read-v2']);

    // PostgreSQL may keep one generic plan for a prepared statement, made without knowing how many reads its arrays
    // hold; on a table the planner thinks small, a plain join would then hash a scan of every transaction, and keep
    // doing so as the table grows until its next analyze.
    await db.raw('ANALYZE ledger_transactions');
    await db.transaction(async (trx) => {
      await trx.raw('SET LOCAL plan_cache_mode = force_generic_plan');
      const genericPlan = async (name: string, sql: string) => {
        const statement = `plan_${name.replace(/-/g, '_')}`;
        await trx.raw(`PREPARE ${statement} (text[], bigint[]) AS ${sql}`);
        const plan = (await trx.raw(`EXPLAIN EXECUTE ${statement}(ARRAY['${ledger}'], ARRAY[0::bigint])`)).rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
        await trx.raw(`DEALLOCATE ${statement}`);
        return plan;
      };
      for (const [name, sql] of named) {
        const plan = await genericPlan(name, sql);
        expect(plan).toMatch(/^Nested Loop[^]*Function Scan on generate_subscripts k[^]*Limit/);
        expect(plan).not.toMatch(/Hash Join|Merge Join/);
        // On a table this small a scan may cost less; the lookup must still be one the primary key can answer, which
        // the planner picks as soon as the table is larger.
        await trx.raw('SET LOCAL enable_seqscan = off');
        expect(await genericPlan(name, sql)).toMatch(/Index (Only )?Scan using ledger_transactions_pkey[^]*Index Cond: \(\(ledger = \(\$1\)\[k\.i\]\) AND \(id = \(\$2\)\[k\.i\]\)\)/);
        await trx.raw('SET LOCAL enable_seqscan = on');
      }
    });
  });

  it('keeps one generic plan for the shared statement instead of planning it at each read', async () => {
    const ledger = await newLedger('reads-generic');
    await postTransaction(ledger, { postings: [posting('world', 'g', 1)] });
    const single = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 1 });
    try {
      // One read at a time: the smallest batches are the ones PostgreSQL planned afresh when it could count them.
      for (let i = 0; i < 12; i++) expect(await getTransactionJson(single, ledger, 0n, 'v1')).toContain('"txid":0');
      // Prepared statements belong to a session: asked on the pipelined connection the shared reads run on.
      const rows = await pipelinedRows<Record<string, string>>(single, undefined, 'SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = $1', ['ledger-transaction-read-v1']);
      // PostgreSQL makes five custom plans before it weighs the generic one; every later read must reuse the generic plan.
      expect(rows.map((r) => [Number(r.generic_plans), Number(r.custom_plans)])).toEqual([[7, 5]]);
    } finally {
      await single.destroy();
    }
  });

  it('drops a connection whose prepared statement the server forgot, so the next read prepares it afresh', async () => {
    const ledger = await newLedger('reads-stale');
    await postTransaction(ledger, { postings: [posting('world', 's', 3)] });
    const single = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 1 });
    try {
      expect(await getTransactionJson(single, ledger, 0n, 'v2')).toContain('"id":0');
      // The shared reads' connection forgets its named statements, as a pooler's DISCARD ALL would make it.
      await pipelinedRows(single, undefined, 'DEALLOCATE ALL', []);
      await expect(getTransactionJson(single, ledger, 0n, 'v2')).rejects.toMatchObject({ code: '26000' });
      expect(await getTransactionJson(single, ledger, 0n, 'v2')).toContain('"id":0');
    } finally {
      await single.destroy();
    }
  });
});
