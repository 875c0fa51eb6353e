import { createDb, type Db } from '../../../db/knex';
import { api, type ApiResponse } from '../../support/http';
import { logAndEventViolations, ledgerViolations } from '../../support/ledger-invariants';
import { newLedger, posting, postTransaction } from '../../support/ledger';

/**
 * Writes that contend on a few accounts of one ledger from every write path at once (group commit, checked writes,
 * atomic and non-atomic bulks, reverts): every request is answered, none with a 5xx, and the ledger stays exact.
 */

/** Not a timing assertion: room for a shared, loaded machine to get through hundreds of contended writes. */
const STORM_TIMEOUT_MS = 240_000;

const ACCOUNTS = Array.from({ length: 10 }, (_, i) => `acc:${i}`);

/** A small deterministic generator, so a failing run can be replayed with the same seed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const bulk = (ledger: string, elements: unknown[], query = '') => api('POST', `/api/ledger/v2/${ledger}/_bulk${query}`, { body: elements });
const transfer = (source: string, destination: string, amount: number) => ({
  action: 'CREATE_TRANSACTION',
  data: { postings: [posting(source, destination, amount)] },
});
/**
 * 20 bulks of 8 transfers round the accounts, each bulk walking them in an order of its own (amounts 1 to maxAmount),
 * so two bulks typically need each other's accounts in opposite orders.
 */
const roundTripBulks = (random: () => number, maxAmount: number) =>
  Array.from({ length: 20 }, () => {
    const order = [...ACCOUNTS].sort(() => random() - 0.5);
    return Array.from({ length: 8 }, (_, i) => transfer(order[i], order[(i + 1) % order.length], 1 + Math.floor(random() * maxAmount)));
  });
const sendScript = (source: string, destination: string, amount: number) => ({
  script: {
    plain: `vars { account $src\naccount $dst }\nsend [USD/2 ${amount}] (\n  source = $src\n  destination = $dst\n)`,
    vars: { src: source, dst: destination },
  },
});

/** A status this storm may answer: success, or a business refusal the request itself explains. */
function expectedRefusal(res: ApiResponse): boolean {
  if (res.status < 300) return true;
  return res.status === 400 && ['INSUFFICIENT_FUND', 'ALREADY_REVERT'].includes(res.body?.errorCode);
}

/** Fund every account so most writes pass, leaving room for a few refusals. */
async function fundAll(ledger: string, amount: number): Promise<void> {
  const res = await bulk(
    ledger,
    ACCOUNTS.map((a) => transfer('world', a, amount)),
    '?atomic=true',
  );
  if (res.status !== 200) throw new Error(`funding: ${res.status} ${res.text}`);
}

/** How many transactions an answer says were committed (a revert is one). */
function committedBy(res: ApiResponse): number {
  if (res.status >= 300 && !Array.isArray(res.body?.data)) return 0;
  const data = res.body?.data;
  if (Array.isArray(data))
    return data.filter((r: { responseType: string }) => r.responseType === 'CREATE_TRANSACTION' || r.responseType === 'REVERT_TRANSACTION').length;
  return data?.id !== undefined ? 1 : 0;
}

describe('ledger writes under contention', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 2 });
  });
  afterAll(() => db.destroy());

  async function expectExactLedger(ledger: string, answers: ApiResponse[], funding: number): Promise<void> {
    const committed = answers.reduce((n, res) => n + committedBy(res), 0) + funding;
    expect(await db('ledger_transactions').where({ ledger }).count({ n: '*' })).toEqual([{ n: String(committed) }]);
    expect(await ledgerViolations(db, ledger)).toEqual([]);
    expect(await logAndEventViolations(db, ledger)).toEqual([]);
  }

  const summary = (answers: ApiResponse[]) => answers.filter((r) => !expectedRefusal(r)).map((r) => `${r.status} ${r.text}`);

  it(
    'answers a mixed storm on 10 accounts (scripts, transfers, bulks, reverts; 48 in flight) without a 5xx',
    async () => {
      const ledger = await newLedger('storm');
      await fundAll(ledger, 1000);
      const random = rng(36);
      const pick = () => ACCOUNTS[Math.floor(random() * ACCOUNTS.length)];
      const amount = () => 1 + Math.floor(random() * 40);
      const pair = (): [string, string] => {
        const a = pick();
        let b = pick();
        while (b === a) b = pick();
        return [a, b];
      };
      const committedIds: number[] = [];
      const operations: Array<() => Promise<ApiResponse>> = Array.from({ length: 240 }, (_, i) => {
        const kind = i % 6;
        if (kind === 0) {
          const [a, b] = pair();
          const n = amount();
          return () => postTransaction(ledger, sendScript(a, b, n));
        }
        if (kind === 1) {
          const [a, b] = pair();
          const n = amount();
          return () => postTransaction(ledger, { postings: [posting(a, b, n)] });
        }
        if (kind === 2 || kind === 3) {
          const elements = Array.from({ length: 2 + Math.floor(random() * 7) }, () => {
            const [a, b] = pair();
            return transfer(a, b, amount());
          });
          return () => bulk(ledger, elements, kind === 2 ? '?atomic=true' : '?continueOnFailure=true');
        }
        if (kind === 4) {
          const r = random();
          return () => {
            if (committedIds.length === 0) return postTransaction(ledger, { postings: [posting('world', pick(), 1)] });
            const id = committedIds[Math.floor(r * committedIds.length)];
            return api('POST', `/api/ledger/v2/${ledger}/transactions/${id}/revert`);
          };
        }
        const r = random();
        const [a, b] = pair();
        return () => {
          const id = committedIds.length > 0 ? committedIds[Math.floor(r * committedIds.length)] : 0;
          return bulk(ledger, [transfer(a, b, 3), { action: 'REVERT_TRANSACTION', data: { id } }], '?atomic=true');
        };
      });
      const answers: ApiResponse[] = [];
      const queue = [...operations];
      await Promise.all(
        Array.from({ length: 48 }, async () => {
          for (let op = queue.shift(); op; op = queue.shift()) {
            const res = await op();
            answers.push(res);
            if (res.status === 200 && res.body?.data?.id !== undefined) committedIds.push(res.body.data.id);
          }
        }),
      );
      expect(answers).toHaveLength(operations.length);
      expect(summary(answers)).toEqual([]);
      await expectExactLedger(ledger, answers, ACCOUNTS.length);
    },
    STORM_TIMEOUT_MS,
  );

  it(
    'commits 20 concurrent atomic bulks of 8 transfers between 10 accounts, whatever their lock order',
    async () => {
      const ledger = await newLedger('abulk');
      await fundAll(ledger, 10_000);
      // The shape that deadlocks when each element locks its accounts as it runs.
      const bulks = roundTripBulks(rng(9), 10);
      const answers = await Promise.all(bulks.map((elements) => bulk(ledger, elements, '?atomic=true')));
      expect(answers.map((r) => (r.status === 200 ? 200 : `${r.status} ${r.text}`))).toEqual(Array(20).fill(200));
      await expectExactLedger(ledger, answers, ACCOUNTS.length);
    },
    STORM_TIMEOUT_MS,
  );

  it(
    'answers 20 concurrent atomic bulks of plain transfers with funds for some only, committed in shared batches: each all or nothing',
    async () => {
      const ledger = await newLedger('abulk-units');
      // Bulks of plain postings join the group commit as all-or-nothing units: one that runs an account dry part way
      // must leave no trace, and the bulks batched after it must be checked without it.
      await fundAll(ledger, 6);
      const bulks = roundTripBulks(rng(31), 6);
      const answers = await Promise.all(bulks.map((elements) => bulk(ledger, elements, '?atomic=true')));
      const unexplained = answers.filter((r) => {
        if (r.status === 200) return false;
        const index = r.body?.errorDetails?.index;
        return !(r.status === 400 && Number.isInteger(index) && r.body.errorDetails.errorCode === 'INSUFFICIENT_FUND');
      });
      expect(unexplained.map((r) => `${r.status} ${r.text}`)).toEqual([]);
      await expectExactLedger(ledger, answers, ACCOUNTS.length);
    },
    STORM_TIMEOUT_MS,
  );

  it(
    'answers 20 concurrent atomic bulks over 10 shared accounts with funds for some only: each 200 or a 400 naming its element',
    async () => {
      const ledger = await newLedger('abulk-tight');
      // Little enough that some bulks run an account dry part way: those must fail whole, on their own element.
      await fundAll(ledger, 12);
      const first = (await postTransaction(ledger, { postings: [posting('world', ACCOUNTS[0], 5)] })).body.data;
      const random = rng(20);
      // Transfers in an order of each bulk's own, plus account metadata on two of its accounts and, in a few bulks, the
      // same revert: every row kind an atomic bulk locks (transactions, volumes, accounts), over the same accounts.
      const bulks = Array.from({ length: 20 }, (_, n) => {
        const order = [...ACCOUNTS].sort(() => random() - 0.5);
        const elements: unknown[] = Array.from({ length: 8 }, (_, i) =>
          transfer(order[i], order[(i + 1) % order.length], 1 + Math.floor(random() * 6)),
        );
        elements.splice(3, 0, { action: 'ADD_METADATA', data: { targetType: 'ACCOUNT', targetId: order[5], metadata: { bulk: String(n) } } });
        elements.push({ action: 'ADD_METADATA', data: { targetType: 'ACCOUNT', targetId: order[0], metadata: { last: String(n) } } });
        if (n % 5 === 0) elements.push({ action: 'REVERT_TRANSACTION', data: { id: Number(first.id) } });
        return elements;
      });
      const answers = await Promise.all(bulks.map((elements) => bulk(ledger, elements, '?atomic=true')));
      const unexplained = answers.filter((r) => {
        if (r.status === 200) return false;
        if (r.status !== 400) return true;
        const index = r.body?.errorDetails?.index;
        return !(
          Number.isInteger(index) &&
          String(r.body.errorMessage).startsWith(`element ${index}: `) &&
          ['INSUFFICIENT_FUND', 'ALREADY_REVERT'].includes(r.body.errorDetails.errorCode)
        );
      });
      expect(unexplained.map((r) => `${r.status} ${r.text}`)).toEqual([]);
      // At most one bulk reverts the transaction; the others that try answer ALREADY_REVERT (or failed earlier).
      const reverts = answers.filter(
        (r) => r.status === 200 && r.body.data.some((e: { responseType: string }) => e.responseType === 'REVERT_TRANSACTION'),
      );
      expect(reverts.length).toBeLessThanOrEqual(1);
      await expectExactLedger(ledger, answers, ACCOUNTS.length + 1);
    },
    STORM_TIMEOUT_MS,
  );

  it(
    'commits 20 concurrent v1 batches of 8 transfers between 10 accounts, whatever their lock order',
    async () => {
      const ledger = await newLedger('v1batch');
      await fundAll(ledger, 10_000);
      const random = rng(1);
      const batches = Array.from({ length: 20 }, () => {
        const order = [...ACCOUNTS].sort(() => random() - 0.5);
        return Array.from({ length: 8 }, (_, i) => ({ postings: [posting(order[i], order[(i + 1) % order.length], 1 + Math.floor(random() * 10))] }));
      });
      const answers = await Promise.all(
        batches.map((transactions) => api('POST', `/api/ledger/${ledger}/transactions/batch`, { body: { transactions } })),
      );
      expect(answers.map((r) => (r.status === 200 ? 200 : `${r.status} ${r.text}`))).toEqual(Array(20).fill(200));
      const committed = ACCOUNTS.length + answers.reduce((n, r) => n + r.body.data.length, 0);
      expect(await db('ledger_transactions').where({ ledger }).count({ n: '*' })).toEqual([{ n: String(committed) }]);
      expect(await ledgerViolations(db, ledger)).toEqual([]);
    },
    STORM_TIMEOUT_MS,
  );

  it(
    'answers 60 parallel atomic bulks without 5xx',
    async () => {
      const ledger = await newLedger('abulk60');
      await fundAll(ledger, 10_000);
      const random = rng(60);
      const bulks = Array.from({ length: 60 }, () => {
        const order = [...ACCOUNTS].sort(() => random() - 0.5);
        return Array.from({ length: 8 }, (_, i) => transfer(order[i], order[(i + 1) % order.length], 1 + Math.floor(random() * 10)));
      });
      const answers = await Promise.all(bulks.map((elements) => bulk(ledger, elements, '?atomic=true')));
      expect(answers.map((r) => (r.status === 200 ? 200 : `${r.status} ${r.text}`))).toEqual(Array(60).fill(200));
      await expectExactLedger(ledger, answers, ACCOUNTS.length);
    },
    STORM_TIMEOUT_MS,
  );
});
