import { api } from '../../support/http';
import { newLedger, posting, postTransaction } from '../../support/ledger';
import { pastOf } from './support';

interface Committed {
  timestamp: Date;
  postings: Array<{ source: string; destination: string; amount: bigint; asset: string }>;
}

/** The balances of the `users:` accounts replayed from the transactions dated at or before `instant`. */
function replay(transactions: Committed[], instant: Date): Record<string, bigint> {
  const out: Record<string, bigint> = {};
  for (const tx of transactions) {
    if (tx.timestamp.getTime() > instant.getTime()) continue;
    for (const p of tx.postings) {
      if (p.destination.startsWith('users:')) out[p.asset] = (out[p.asset] ?? 0n) + p.amount;
      if (p.source.startsWith('users:')) out[p.asset] = (out[p.asset] ?? 0n) - p.amount;
    }
  }
  return out;
}

const aggregateAt = async (ledger: string, instant: Date, extra = '') => {
  const query = encodeURIComponent(JSON.stringify({ $match: { address: 'users:' } }));
  const res = await api('GET', `/api/ledger/v2/${ledger}/aggregate/balances?pit=${instant.toISOString()}&query=${query}${extra}`);
  expect(res.status).toBe(200);
  return Object.fromEntries(Object.entries(res.body.data as Record<string, number | bigint>).map(([k, v]) => [k, BigInt(v)]));
};
const nonZero = (m: Record<string, bigint>) => Object.fromEntries(Object.entries(m).filter(([, v]) => v !== 0n));

/**
 * Point-in-time aggregated balances equal a replay of the postings at that instant, while transactions commit
 * concurrently: instants are taken during the writes and read at once (so writers begun before them may still be
 * open), and read again once every write has committed; both answers must equal the replay of every transaction dated
 * at or before the instant.
 */
describe('ledger aggregated balances at a point in time', () => {
  it('equal the replay at each instant under concurrent writes, read during and after them', async () => {
    const ledger = await newLedger('pit');
    const committed: Committed[] = [];
    const samples: Array<{ instant: Date; during: Record<string, bigint> }> = [];
    const WRITERS = 6;
    const PER_WRITER = 12;
    let writing = true;

    const writer = async (w: number) => {
      for (let i = 0; i < PER_WRITER; i++) {
        // Amounts beyond 2^64, money moving between users as well as in from world, two assets.
        const amount = 2n ** 64n + BigInt(w * 1000 + i);
        const asset = i % 3 === 0 ? 'EUR/2' : 'USD/2';
        const postings =
          i % 4 === 3
            ? [posting(`users:${w}`, `users:${(w + 1) % WRITERS}`, 1n, asset), posting('world', 'bank:main', amount, asset)]
            : [posting('world', `users:${w}`, amount, asset)];
        const res = await postTransaction(ledger, { postings });
        expect(res.status).toBe(200);
        committed.push({ timestamp: new Date(res.body.data.timestamp), postings: postings.map((p) => ({ ...p, amount: BigInt(p.amount) })) });
      }
    };
    const sampler = async () => {
      while (writing) {
        const instant = await pastOf(new Date());
        samples.push({ instant, during: await aggregateAt(ledger, instant) });
      }
    };
    const writers = Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w))).finally(() => {
      writing = false;
    });
    await Promise.all([writers, sampler()]);

    expect(committed).toHaveLength(WRITERS * PER_WRITER);
    expect(samples.length).toBeGreaterThan(2);
    // Instants before the first and after the last write too.
    const first = Math.min(...committed.map((c) => c.timestamp.getTime()));
    samples.push({ instant: new Date(first - 1), during: await aggregateAt(ledger, new Date(first - 1)) });
    const end = await pastOf(new Date());
    samples.push({ instant: end, during: await aggregateAt(ledger, end) });

    let between = 0;
    for (const { instant, during } of samples) {
      const expected = replay(committed, instant);
      if (Object.keys(expected).length > 0 && instant.getTime() < end.getTime()) between++;
      expect({ instant: instant.toISOString(), balances: nonZero(during) }).toEqual({ instant: instant.toISOString(), balances: nonZero(expected) });
      expect(nonZero(await aggregateAt(ledger, instant))).toEqual(nonZero(expected));
    }
    // The samples did fall between writes, not only before the first or after the last.
    expect(between).toBeGreaterThan(0);
    // The latest instant agrees with the current balances.
    const current = await api(
      'GET',
      `/api/ledger/v2/${ledger}/aggregate/balances?query=${encodeURIComponent(JSON.stringify({ $match: { address: 'users:' } }))}`,
    );
    expect(nonZero(Object.fromEntries(Object.entries(current.body.data as Record<string, number | bigint>).map(([k, v]) => [k, BigInt(v)])))).toEqual(
      nonZero(replay(committed, end)),
    );
  });

  it('dates a backdated transaction by its timestamp, or by its insertion with useInsertionDate', async () => {
    const ledger = await newLedger('pit');
    const before = await pastOf(new Date());
    await pastOf(new Date(Date.now() + 1));
    const res = await postTransaction(ledger, { postings: [posting('world', 'users:1', 500n)], timestamp: '2020-01-01T00:00:00Z' });
    expect(res.status).toBe(200);
    expect(await aggregateAt(ledger, before)).toEqual({ 'USD/2': 500n });
    expect(await aggregateAt(ledger, before, '&useInsertionDate=true')).toEqual({});
    expect(await aggregateAt(ledger, new Date('2019-12-31T23:59:59.999Z'))).toEqual({});
  });

  it('refuses a malformed pit and a bad query with 400', async () => {
    const ledger = await newLedger('pit');
    expect((await api('GET', `/api/ledger/v2/${ledger}/aggregate/balances?pit=yesterday`)).status).toBe(400);
    const bad = await api('GET', `/api/ledger/v2/${ledger}/aggregate/balances?pit=2024-01-01T00:00:00Z&query=${encodeURIComponent('{"$nope":{}}')}`);
    expect(bad.status).toBe(400);
    expect(bad.body.errorCode).toBe('VALIDATION');
  });
});
