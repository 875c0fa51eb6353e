import { createDb, type Db } from '../../../db/knex';
import { control } from '../../support/control';
import { ledgerViolations, logAndEventViolations } from '../../support/ledger-invariants';
import { newLedger, posting, postTransaction } from '../../support/ledger';
import { pollUntil } from '../../support/eventually';

const CLIENTS = 32;

describe('ledger group commit under a crash', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 2 });
  });
  afterAll(() => db.destroy());

  it('keeps every acknowledged write and nothing half-written when the API is killed (-9) in the middle of batches', async () => {
    const ledger = await newLedger('gc-crash');
    await postTransaction(ledger, { postings: [posting('world', 'hot', 1_000_000)] });
    const attempted = new Set<string>();
    const acknowledged = new Set<string>();
    let lost = 0;
    let stop = false;
    const client = async (c: number) => {
      for (let n = 0; !stop; n++) {
        const reference = `c${c}-${n}`;
        attempted.add(reference);
        try {
          const res = await postTransaction(ledger, { postings: [posting(n % 2 ? 'hot' : 'world', `user:${c}`, 1)], reference });
          if (res.status === 200) acknowledged.add(reference);
          else lost++;
        } catch {
          lost++; // the connection died with the API: the write's fate is unknown to the client
          // Only the kill fails a write: the client waits for the API to be back (and told to stop), not spinning on
          // refused connections meanwhile.
          await crashed;
        }
      }
    };
    const crashed = (async () => {
      await pollUntil(
        () => acknowledged.size,
        (size) => size >= 200,
        { intervalMs: 20, what: '200 acknowledged writes' },
      );
      await control('api', 'kill'); // answers once the API is healthy again
      stop = true;
    })();
    const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
    await crashed;
    await Promise.all(clients);

    expect(lost).toBeGreaterThan(0);
    const stored = new Set<string>(await db('ledger_transactions').where({ ledger }).whereNotNull('reference').pluck('reference'));
    expect([...acknowledged].filter((r) => !stored.has(r))).toEqual([]);
    expect([...stored].filter((r) => !attempted.has(r))).toEqual([]);
    expect(await ledgerViolations(db, ledger)).toEqual([]);
    expect(await logAndEventViolations(db, ledger)).toEqual([]);
  });
});
