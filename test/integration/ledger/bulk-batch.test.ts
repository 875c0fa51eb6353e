import { api } from '../../support/http';
import { balance, fund } from '../../support/ledger-fixtures';
import { newLedger } from '../../support/ledger';

/** A bulk's runs of transactions are committed as batches of the write pipeline: these pin what a batch must keep. */

const send = (source: string, destination: string, amount: number, ik?: string) => ({
  action: 'CREATE_TRANSACTION',
  ...(ik !== undefined ? { ik } : {}),
  data: { postings: [{ source, destination, amount, asset: 'USD/2' }] },
});
const bulk = (ledger: string, elements: unknown[], query = '') => api('POST', `/api/ledger/v2/${ledger}/_bulk${query}`, { body: elements });
type Result = { responseType: string; logID: number; data?: { id: number; preCommitVolumes: any; postCommitVolumes: any }; errorCode?: string };
const results = (res: { body: { data: Result[] } }) => res.body.data;
const logIds = async (ledger: string) =>
  ((await api('GET', `/api/ledger/v2/${ledger}/logs?pageSize=100`)).body.cursor.data as Array<{ id: number; type: string }>).map((l) => l.id);

describe('ledger bulk committed as batches', () => {
  it('not atomic, continueOnFailure: each element checked after the ones before it; a refused one leaves the others; ids dense in element order', async () => {
    const ledger = await newLedger('bulk-batch');
    await fund(ledger, 'a', 10);
    const res = await bulk(
      ledger,
      [send('a', 'b', 10), send('b', 'c', 4), send('a', 'd', 1), send('b', 'd', 6), send('b', 'e', 1), send('world', 'f', 3)],
      '?continueOnFailure=true',
    );
    expect(res.status).toBe(400);
    expect(res.body.errorDetails).toEqual({ index: 2, errorCode: 'INSUFFICIENT_FUND' });
    const data = results(res);
    expect(data.map((r) => r.responseType)).toEqual([
      'CREATE_TRANSACTION',
      'CREATE_TRANSACTION',
      'ERROR',
      'CREATE_TRANSACTION',
      'ERROR',
      'CREATE_TRANSACTION',
    ]);
    expect(data.filter((r) => r.data).map((r) => r.data!.id)).toEqual([1, 2, 3, 4]);
    expect(data.filter((r) => r.data).map((r) => r.logID)).toEqual([1, 2, 3, 4]);
    expect(data.filter((r) => !r.data).map((r) => r.logID)).toEqual([-1, -1]);
    // Pre- and post-commit volumes are those of the element order.
    expect(data[3].data!.preCommitVolumes.b['USD/2']).toMatchObject({ input: 10, output: 4, balance: 6 });
    expect(data[3].data!.postCommitVolumes.b['USD/2']).toMatchObject({ input: 10, output: 10, balance: 0 });
    expect([await balance(ledger, 'a'), await balance(ledger, 'b'), await balance(ledger, 'c'), await balance(ledger, 'd')]).toEqual([
      0n,
      0n,
      4n,
      6n,
    ]);
    expect(await balance(ledger, 'f')).toBe(3n);
    expect((await logIds(ledger)).sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4]);
  });

  it('not atomic: nothing after the first failure is written, and its Idempotency-Keys stay free', async () => {
    const ledger = await newLedger('bulk-batch');
    const res = await bulk(ledger, [send('world', 'a', 1, 'k1'), send('empty', 'b', 1, 'k2'), send('world', 'c', 1, 'k3')]);
    expect(res.status).toBe(400);
    expect(results(res).map((r) => r.responseType)).toEqual(['CREATE_TRANSACTION', 'ERROR']);
    expect(await balance(ledger, 'c')).toBe(0n);
    // k3 was never used: the same key with another request commits instead of answering CONFLICT.
    const again = await bulk(ledger, [send('world', 'c', 2, 'k3')]);
    expect(again.status).toBe(200);
    expect(results(again)[0]).toMatchObject({ responseType: 'CREATE_TRANSACTION', data: { id: 1 }, logID: 1 });
    expect(await balance(ledger, 'c')).toBe(2n);
  });

  it('a key repeated in one bulk replays the element that used it first, atomic or not', async () => {
    for (const query of ['', '?atomic=true']) {
      const ledger = await newLedger('bulk-batch');
      const res = await bulk(ledger, [send('world', 'a', 5, 'same'), send('world', 'b', 1), send('world', 'a', 5, 'same')], query);
      expect(res.status).toBe(200);
      const data = results(res);
      expect(data.map((r) => r.data!.id)).toEqual([0, 1, 0]);
      expect(data.map((r) => r.logID)).toEqual([0, 1, 0]);
      expect(await balance(ledger, 'a')).toBe(5n);
    }
  });

  it('atomic: an element spends what an earlier one brought; a refusal anywhere writes nothing and consumes no id', async () => {
    const ledger = await newLedger('bulk-batch');
    const ok = await bulk(ledger, [send('world', 'a', 3), send('a', 'b', 3), send('b', 'c', 2)], '?atomic=true');
    expect(ok.status).toBe(200);
    expect(results(ok).map((r) => [r.data!.id, r.logID])).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
    ]);
    const refused = await bulk(ledger, [send('world', 'x', 1), send('c', 'd', 1), send('c', 'd', 2), send('world', 'y', 1)], '?atomic=true');
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ errorCode: 'INSUFFICIENT_FUND', errorDetails: { index: 2 } });
    expect([await balance(ledger, 'x'), await balance(ledger, 'c'), await balance(ledger, 'y')]).toEqual([0n, 2n, 0n]);
    const next = await bulk(ledger, [send('world', 'z', 1)], '?atomic=true');
    expect(results(next)[0]).toMatchObject({ data: { id: 3 }, logID: 3 });
  });
});
