import fc from 'fast-check';
import { createDb, type Db } from '../../../db/knex';
import { api } from '../../support/http';
import { ledgerViolations } from '../../support/ledger-invariants';
import { newLedger, posting, postTransaction } from '../../support/ledger';

const ACCOUNTS = ['world', 'a', 'b', 'c', 'users:1', 'users:2'];
const ASSETS = ['USD/2', 'EUR'];

describe('ledger under concurrent writers', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 2 });
  });
  afterAll(() => db.destroy());

  it('never loses an update: exactly floor(F/a) of N concurrent debits succeed', async () => {
    const ledger = await newLedger('nlu');
    const F = 100;
    const a = 7;
    const N = 30;
    await postTransaction(ledger, { postings: [posting('world', 'payer', F)] });
    const results = await Promise.all(
      Array.from({ length: N }, (_, i) => postTransaction(ledger, { postings: [posting('payer', `payee:${i}`, a)] })),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 400 && r.body.errorCode === 'INSUFFICIENT_FUND');
    expect(ok).toHaveLength(Math.floor(F / a));
    expect(refused).toHaveLength(N - Math.floor(F / a));
    const account = await api('GET', `/api/ledger/v2/${ledger}/accounts/payer`);
    expect(account.body.data.volumes['USD/2'].balance).toBe(F - Math.floor(F / a) * a);
    expect(await ledgerViolations(db, ledger)).toEqual([]);
  });

  it('turns 20 parallel requests with one Idempotency-Key into one transaction', async () => {
    const ledger = await newLedger('idem');
    const body = { postings: [posting('world', 'idem:target', 11)], metadata: { order: '1' } };
    const results = await Promise.all(Array.from({ length: 20 }, () => postTransaction(ledger, body, { 'Idempotency-Key': 'same-key' })));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(results.map((r) => r.body.data.id))).toEqual(new Set([0]));
    expect(results.filter((r) => r.headers.get('idempotency-hit') !== 'true')).toHaveLength(1);
    expect(await db('ledger_transactions').where({ ledger }).count({ n: '*' })).toEqual([{ n: '1' }]);
    const account = await api('GET', `/api/ledger/v2/${ledger}/accounts/idem:target`);
    expect(account.body.data.volumes['USD/2'].balance).toBe(11);
  });

  it('reverts a transaction once when asked concurrently', async () => {
    const ledger = await newLedger('rvc');
    await postTransaction(ledger, { postings: [posting('world', 'r:1', 5)] });
    const results = await Promise.all(Array.from({ length: 8 }, () => api('POST', `/api/ledger/v2/${ledger}/transactions/0/revert`)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.body.errorCode === 'ALREADY_REVERT')).toHaveLength(7);
    expect(await ledgerViolations(db, ledger)).toEqual([]);
    expect((await api('POST', `/api/ledger/v2/${ledger}/logs/verify`)).body.data).toMatchObject({ valid: true, mismatchCount: 0 });
  });

  it('keeps every invariant under random concurrent postings (property)', async () => {
    const postingArb = fc.record({
      source: fc.constantFrom(...ACCOUNTS),
      destination: fc.constantFrom(...ACCOUNTS),
      amount: fc.bigInt({ min: 0n, max: 50n }),
      asset: fc.constantFrom(...ASSETS),
    });
    const txArb = fc.array(postingArb, { minLength: 1, maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(fc.array(txArb, { minLength: 5, maxLength: 40 }), fc.integer({ min: 2, max: 16 }), async (txs, writers) => {
        const ledger = await newLedger('prop');
        const queue = [...txs];
        const statuses: Array<[number, string | undefined]> = [];
        await Promise.all(
          Array.from({ length: writers }, async () => {
            for (let tx = queue.shift(); tx; tx = queue.shift()) {
              const res = await postTransaction(ledger, { postings: tx });
              statuses.push([res.status, res.body.errorCode]);
            }
          }),
        );
        for (const [status, code] of statuses) expect(status === 200 || (status === 400 && code === 'INSUFFICIENT_FUND')).toBe(true);
        const committed = statuses.filter(([s]) => s === 200).length;
        expect(await db('ledger_transactions').where({ ledger }).count({ n: '*' })).toEqual([{ n: String(committed) }]);
        expect(await ledgerViolations(db, ledger)).toEqual([]);
        // Replaying the log rebuilds exactly what the concurrent writers stored.
        expect((await api('POST', `/api/ledger/v2/${ledger}/logs/verify`)).body.data).toMatchObject({
          valid: true,
          mismatches: [],
          mismatchCount: 0,
        });
      }),
      { numRuns: 15 },
    );
  });
});
