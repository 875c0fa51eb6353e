import { clockPast } from '../../support/eventually';
import { api } from '../../support/http';
import { newLedger, posting, postTransaction } from '../../support/ledger';

/** Every item of a cursor list, following `next` until the end. */
async function allPages(path: string): Promise<any[]> {
  const items: any[] = [];
  let res = await api('GET', path);
  for (;;) {
    expect(res.status).toBe(200);
    items.push(...res.body.cursor.data);
    if (!res.body.cursor.hasMore) return items;
    res = await api('GET', `${path.split('?')[0]}?cursor=${encodeURIComponent(res.body.cursor.next)}`);
  }
}

const count = async (path: string) => {
  const res = await api('HEAD', path);
  expect(res.status).toBe(204);
  expect(res.text).toBe('');
  return Number(res.headers.get('Count'));
};

describe('ledger counts, stats and volumes', () => {
  let ledger: string;
  let between: string;

  beforeAll(async () => {
    ledger = await newLedger('reports');
    for (const body of [
      { postings: [posting('world', 'users:1', 100), posting('world', 'users:2', 50)], metadata: { batch: 'a' } },
      { postings: [posting('world', 'users:1', 7, 'EUR/2')] },
    ])
      expect((await postTransaction(ledger, body)).status).toBe(200);
    // The behaviour under test is a time boundary: `between` must fall strictly between the two batches' timestamps
    // (and insertion dates), all stamped before the answers above came back, and before what is written below.
    const betweenMs = await clockPast(Date.now());
    between = new Date(betweenMs).toISOString();
    await clockPast(betweenMs);
    expect((await postTransaction(ledger, { postings: [posting('users:1', 'shop:main', 30)], metadata: { batch: 'b' } })).status).toBe(200);
    expect((await api('POST', `/api/ledger/v2/${ledger}/accounts/users:2/metadata`, { body: { tier: 'gold' } })).status).toBe(204);
  });

  it('HEAD counts what the lists return, with the same filters', async () => {
    expect(await count(`/api/ledger/v2/${ledger}/accounts`)).toBe(4);
    expect(await count(`/api/ledger/v2/${ledger}/accounts?address=users:`)).toBe(2);
    expect(await count(`/api/ledger/v2/${ledger}/accounts?metadata[tier]=gold`)).toBe(1);
    expect(await count(`/api/ledger/v2/${ledger}/transactions`)).toBe(3);
    expect(await count(`/api/ledger/v2/${ledger}/transactions?account=users:1`)).toBe(3);
    expect(await count(`/api/ledger/v2/${ledger}/transactions?source=world`)).toBe(2);
    expect(await count(`/api/ledger/v2/${ledger}/transactions?metadata[batch]=b`)).toBe(1);
    expect(await count(`/api/ledger/v2/${ledger}/transactions?startTime=${between}`)).toBe(1);
    // The GET lists of the same paths still answer with their pages.
    expect((await api('GET', `/api/ledger/v2/${ledger}/transactions`)).body.cursor.data).toHaveLength(3);
  });

  it('HEAD on an unknown ledger is 404, a bad filter 400', async () => {
    expect((await api('HEAD', '/api/ledger/v2/no-such-ledger-reports/accounts')).status).toBe(404);
    expect((await api('HEAD', `/api/ledger/v2/${ledger}/transactions?startTime=yesterday`)).status).toBe(400);
    expect((await api('HEAD', `/api/ledger/v2/${ledger}/accounts?pageSize=2`)).status).toBe(400);
  });

  it('stats: how many accounts and transactions', async () => {
    const res = await api('GET', `/api/ledger/v2/${ledger}/stats`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { accounts: 4, transactions: 3 } });
    const missing = await api('GET', '/api/ledger/v2/no-such-ledger-reports/stats');
    expect(missing.status).toBe(404);
    expect(missing.body.errorCode).toBe('LEDGER_NOT_FOUND');
  });

  it("volumes: current volumes per account and asset, equal to each account's own, page after page", async () => {
    const volumes = await allPages(`/api/ledger/v2/${ledger}/volumes?pageSize=2`);
    expect(volumes).toEqual([
      { account: 'shop:main', asset: 'USD/2', input: 30, output: 0, balance: 30 },
      { account: 'users:1', asset: 'EUR/2', input: 7, output: 0, balance: 7 },
      { account: 'users:1', asset: 'USD/2', input: 100, output: 30, balance: 70 },
      { account: 'users:2', asset: 'USD/2', input: 50, output: 0, balance: 50 },
      { account: 'world', asset: 'EUR/2', input: 0, output: 7, balance: -7 },
      { account: 'world', asset: 'USD/2', input: 0, output: 150, balance: -150 },
    ]);
    for (const v of volumes) {
      const account = await api('GET', `/api/ledger/v2/${ledger}/accounts/${v.account}`);
      expect(account.body.data.volumes[v.asset]).toEqual({ input: v.input, output: v.output, balance: v.balance });
    }
  });

  it("volumes over a time window are summed from that window's postings; groupBy merges address segments", async () => {
    const window = await allPages(`/api/ledger/v2/${ledger}/volumes?startTime=${between}`);
    expect(window).toEqual([
      { account: 'shop:main', asset: 'USD/2', input: 30, output: 0, balance: 30 },
      { account: 'users:1', asset: 'USD/2', input: 0, output: 30, balance: -30 },
    ]);
    const before = await allPages(`/api/ledger/v2/${ledger}/volumes?endTime=${between}&insertionDate=true`);
    expect(before.map((v) => `${v.account} ${v.asset} ${v.balance}`)).toEqual([
      'users:1 EUR/2 7',
      'users:1 USD/2 100',
      'users:2 USD/2 50',
      'world EUR/2 -7',
      'world USD/2 -150',
    ]);
    const grouped = await allPages(`/api/ledger/v2/${ledger}/volumes?groupBy=1&address=users:`);
    expect(grouped).toEqual([
      { account: 'users', asset: 'EUR/2', input: 7, output: 0, balance: 7 },
      { account: 'users', asset: 'USD/2', input: 150, output: 30, balance: 120 },
    ]);
    // groupBy=0 does not group (Formance; fctl sends it when its flag is not given); below 0 is refused.
    const ungrouped = await allPages(`/api/ledger/v2/${ledger}/volumes?groupBy=0&address=users:`);
    expect(ungrouped.map((v) => v.account)).toEqual(['users:1', 'users:1', 'users:2']);
    expect((await api('GET', `/api/ledger/v2/${ledger}/volumes?groupBy=-1`)).status).toBe(400);
    expect((await api('GET', '/api/ledger/v2/no-such-ledger-reports/volumes')).status).toBe(404);
  });

  it('DELETE of a ledger metadata key removes that key only; an absent key is a no-op', async () => {
    expect((await api('PUT', `/api/ledger/v2/${ledger}/metadata`, { body: { owner: 'ops', region: 'eu' } })).status).toBe(204);
    expect((await api('DELETE', `/api/ledger/v2/${ledger}/metadata/owner`)).status).toBe(204);
    expect((await api('DELETE', `/api/ledger/v2/${ledger}/metadata/never-set`)).status).toBe(204);
    expect((await api('GET', `/api/ledger/v2/${ledger}`)).body.data.metadata).toEqual({ region: 'eu' });
    expect((await api('DELETE', '/api/ledger/v2/no-such-ledger-reports/metadata/owner')).status).toBe(404);
  });
});
