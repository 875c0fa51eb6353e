import { api } from '../../support/http';
import { newLedger, posting } from '../../support/ledger';

/** What the contract suite (test/contract/ledger-v1.test.ts) does not exercise: mapping enforcement, batch atomicity, v1 error shapes. */
const v1 = (ledger: string, path: string) => `/api/ledger/${ledger}${path}`;
const create = (ledger: string, body: unknown, query = '') => api('POST', v1(ledger, `/transactions${query}`), { body });
const stats = async (ledger: string) => (await api('GET', v1(ledger, '/stats'))).body.data;
const logCount = async (ledger: string) => (await api('GET', `/api/ledger/v2/${ledger}/logs/chain`)).body.data.logs;
const balance = async (ledger: string, address: string) => (await api('GET', v1(ledger, `/accounts/${address}`))).body.data.balances['USD/2'];

async function funded(prefix: string, amount = 100): Promise<string> {
  const ledger = await newLedger(prefix);
  expect((await create(ledger, { postings: [posting('world', 'users:1', amount)] })).status).toBe(200);
  return ledger;
}

describe('ledger v1: mapping', () => {
  it('refuses a write that breaks the first matching contract, leaving nothing written, and allows one that keeps it', async () => {
    const ledger = await funded('v1map');
    const mapping = {
      contracts: [
        { account: 'users:vip', expr: {} },
        { id: 'floor', account: 'users:*', expr: { $gte: ['$balance', 50] } },
      ],
    };
    const saved = await api('PUT', v1(ledger, '/mapping'), { body: mapping });
    expect(saved.status).toBe(200);
    expect(saved.body.data).toEqual(mapping);
    expect((await api('GET', v1(ledger, '/mapping'))).body.data).toEqual(mapping);

    const before = { stats: await stats(ledger), logs: await logCount(ledger) };
    const broken = await create(ledger, { postings: [posting('users:1', 'shops:1', 60)] });
    expect(broken.status).toBe(400);
    expect(broken.body.errorCode).toBe('INSUFFICIENT_FUND');
    expect(broken.body.errorMessage).toContain('users:1');
    expect(broken.body.errorDetails).toEqual({ account: 'users:1', asset: 'USD/2', balance: 40 });
    expect({ stats: await stats(ledger), logs: await logCount(ledger) }).toEqual(before);

    expect((await create(ledger, { postings: [posting('users:1', 'shops:1', 50)] })).status).toBe(200);
    expect(await balance(ledger, 'users:1')).toBe(50);
    // users:vip matches its own contract first ({} always holds), so the users:* floor does not apply to it.
    expect((await create(ledger, { postings: [posting('world', 'users:vip', 10)] })).status).toBe(200);
    // The next transaction id is the one after the last committed: the refused write consumed none.
    expect((await create(ledger, { postings: [posting('world', 'shops:2', 1)] })).body.data[0].txid).toBe(3);
  });

  it('checks destinations too, with $meta, $and and $or, and the script and revert paths', async () => {
    const ledger = await funded('v1meta');
    const expr = { $and: [{ $eq: [{ $meta: 'state' }, 'open'] }, { $or: [{ $lte: ['$balance', 20] }, { $eq: ['$balance', 100] }] }] };
    expect((await api('PUT', v1(ledger, '/mapping'), { body: { contracts: [{ account: 'locked:*', expr }] } })).status).toBe(200);
    expect((await create(ledger, { postings: [posting('users:1', 'locked:1', 10)] })).body.errorCode).toBe('INSUFFICIENT_FUND');
    expect((await api('POST', v1(ledger, '/accounts/locked:1/metadata'), { body: { state: 'open' } })).status).toBe(204);
    expect((await create(ledger, { postings: [posting('users:1', 'locked:1', 10)] })).status).toBe(200);
    expect((await create(ledger, { postings: [posting('users:1', 'locked:1', 30)] })).body.errorCode).toBe('INSUFFICIENT_FUND');

    const script = await api('POST', v1(ledger, '/script'), { body: { plain: 'send [USD/2 15] ( source = @users:1 destination = @locked:1 )' } });
    expect(script.status).toBe(200);
    expect(script.body).toEqual({ errorCode: 'INSUFFICIENT_FUND', errorMessage: expect.stringContaining('locked:1') });

    // Reverting txid 1 takes locked:1 back to 0, within the contract; reverting the funding would empty users:1 (fine: no contract).
    expect((await api('POST', v1(ledger, '/transactions/1/revert'))).status).toBe(201);
    expect(await balance(ledger, 'locked:1')).toBe(0);
  });

  it('applies to v1 writes only: v2 writes and a revert with disableChecks skip it', async () => {
    const ledger = await funded('v1scope');
    await api('PUT', v1(ledger, '/mapping'), { body: { contracts: [{ account: 'users:*', expr: { $gte: ['$balance', 90] } }] } });
    expect((await api('POST', `/api/ledger/v2/${ledger}/transactions`, { body: { postings: [posting('users:1', 'shops:1', 20)] } })).status).toBe(
      200,
    );
    expect(await balance(ledger, 'users:1')).toBe(80);
    expect((await create(ledger, { postings: [posting('world', 'users:1', 5)] })).body.errorCode).toBe('INSUFFICIENT_FUND');
    // Reverting the funding would leave users:1 at -20: refused, unless disableChecks (v2's force) skips every check.
    expect((await api('POST', v1(ledger, '/transactions/0/revert'))).body.errorCode).toBe('INSUFFICIENT_FUND');
    const forced = await api('POST', v1(ledger, '/transactions/0/revert?disableChecks=true'));
    expect(forced.status).toBe(201);
    expect(await balance(ledger, 'users:1')).toBe(-20);
  });

  it('refuses a malformed expression naming it, and saves nothing', async () => {
    const ledger = await newLedger('v1mapbad');
    for (const [expr, path] of [
      [{ $gte: ['$balance'] }, 'contracts[0].expr.$gte'],
      [{ $gte: ['$balance', 1], $lt: ['$balance', 2] }, 'contracts[0].expr'],
      [{ $gt: [{ $meta: 'x' }, 1] }, 'contracts[0].expr.$gt'],
      [{ $eq: ['$amount', 1] }, 'contracts[0].expr.$eq[0]'],
      [{ $xor: [] }, 'contracts[0].expr'],
      [{ $and: [{ $eq: ['$balance', 1.5] }] }, 'body'],
    ] as const) {
      const res = await api('PUT', v1(ledger, '/mapping'), { body: { contracts: [{ account: 'a:*', expr }] } });
      expect(res.status).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
      expect(res.body.errorMessage.startsWith(path)).toBe(true);
    }
    expect((await api('PUT', v1(ledger, '/mapping'), { body: { contracts: [{ expr: {} }], extra: 1 } })).status).toBe(400);
    expect((await api('GET', v1(ledger, '/mapping'))).body).toEqual({ data: null });
  });
});

describe('ledger v1: batch', () => {
  it('is all or nothing: a failing transaction rolls back those before it and is named by its index', async () => {
    const ledger = await funded('v1batch');
    const before = { stats: await stats(ledger), logs: await logCount(ledger) };
    const res = await api('POST', v1(ledger, '/transactions/batch'), {
      body: {
        transactions: [
          { postings: [posting('users:1', 'a', 10)] },
          { postings: [posting('world', 'b', 5)] },
          { postings: [posting('users:1', 'c', 500)] },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errorCode: 'INSUFFICIENT_FUND',
      errorMessage: expect.stringMatching(/^transactions\[2\]: /),
      errorDetails: { index: 2 },
    });
    expect({ stats: await stats(ledger), logs: await logCount(ledger) }).toEqual(before);
    expect(await balance(ledger, 'users:1')).toBe(100);

    const duplicate = await api('POST', v1(ledger, '/transactions/batch'), {
      body: {
        transactions: [
          { postings: [posting('world', 'a', 1)], reference: 'dup' },
          { postings: [posting('world', 'a', 1)], reference: 'dup' },
        ],
      },
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toMatchObject({ errorCode: 'CONFLICT', errorDetails: { index: 1 } });
    expect(await stats(ledger)).toEqual(before.stats);

    const ok = await api('POST', v1(ledger, '/transactions/batch'), {
      body: { transactions: [{ postings: [posting('users:1', 'a', 10)] }, { postings: [posting('a', 'b', 10)] }] },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data.map((t: { txid: number }) => t.txid)).toEqual([1, 2]);
  });

  it('checks the mapping after each transaction, not only at the end of the batch', async () => {
    const ledger = await funded('v1batchmap');
    await api('PUT', v1(ledger, '/mapping'), { body: { contracts: [{ account: 'users:*', expr: { $lte: ['$balance', 100] } }] } });
    // users:1 would pass through 130 before ending at 80: the first transaction breaks the ceiling.
    const res = await api('POST', v1(ledger, '/transactions/batch'), {
      body: { transactions: [{ postings: [posting('world', 'users:1', 30)] }, { postings: [posting('users:1', 'x', 50)] }] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorCode: 'INSUFFICIENT_FUND', errorDetails: { index: 0 } });
    const ok = await api('POST', v1(ledger, '/transactions/batch'), {
      body: { transactions: [{ postings: [posting('users:1', 'x', 50)] }, { postings: [posting('world', 'users:1', 30)] }] },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data[1].postCommitVolumes['users:1']['USD/2'].balance).toBe(80);
  });
});

describe('ledger v1: errors and edges', () => {
  it('answers {errorCode, errorMessage} with v1 codes', async () => {
    const ledger = await funded('v1err');
    const noPostings = await create(ledger, { postings: [] });
    expect(noPostings.status).toBe(400);
    expect(noPostings.body).toEqual({ errorCode: 'VALIDATION', errorMessage: expect.any(String) });
    expect((await create(ledger, { postings: [posting('users:1', 'a', 1)], extra: true })).body.errorCode).toBe('VALIDATION');
    expect((await create(ledger, { postings: [posting('users:9', 'a', 1)] })).body.errorCode).toBe('INSUFFICIENT_FUND');
    expect((await api('POST', v1(ledger, '/transactions/0/revert'))).status).toBe(201);
    const twice = await api('POST', v1(ledger, '/transactions/0/revert'));
    expect(twice.status).toBe(400);
    expect(twice.body.errorCode).toBe('VALIDATION');
    const missing = await api('POST', v1(ledger, '/transactions/99/revert'));
    expect(missing.status).toBe(404);
    expect(missing.body.errorCode).toBe('NOT_FOUND');
    expect((await api('POST', v1(ledger, '/transactions/99/metadata'), { body: { a: 'b' } })).body.errorCode).toBe('NOT_FOUND');
    // The deprecated pagination_token is not a cursor here: refused rather than silently ignored.
    expect((await api('GET', v1(ledger, '/accounts?pagination_token=abc'))).status).toBe(400);
    expect((await api('GET', v1(ledger, '/accounts?balance=1&balanceOperator=zz'))).status).toBe(400);
  });

  it('answers every script outcome with 200 except a malformed request', async () => {
    const ledger = await funded('v1script');
    expect((await api('POST', v1(ledger, '/script'), { body: { plain: '  ' } })).body).toEqual({
      errorCode: 'NO_SCRIPT',
      errorMessage: expect.any(String),
    });
    const preview = await api('POST', v1(ledger, '/script?preview=true'), {
      body: { plain: 'send [USD/2 1] ( source = @users:1 destination = @a )' },
    });
    expect(preview.status).toBe(200);
    expect(preview.body.transaction.txid).toBe(1);
    expect((await stats(ledger)).transactions).toBe(1);
    const conflict = await api('POST', v1(ledger, '/script'), {
      body: { plain: 'send [USD/2 1] ( source = @world destination = @a )', reference: 'r' },
    });
    expect(conflict.body.transaction.reference).toBe('r');
    const again = await api('POST', v1(ledger, '/script'), {
      body: { plain: 'send [USD/2 1] ( source = @world destination = @a )', reference: 'r' },
    });
    expect(again.status).toBe(200);
    expect(again.body.errorCode).toBe('CONFLICT');
    expect((await api('POST', v1(ledger, '/script'), { body: { plain: 'x', nope: 1 } })).status).toBe(400);
  });

  it('lists logs in v1 shapes: reverts as new transactions, no DELETE_METADATA, hash "" until hashed', async () => {
    const ledger = await funded('v1logs');
    await api('POST', v1(ledger, '/transactions/0/metadata'), { body: { a: '1' } });
    expect((await api('DELETE', `/api/ledger/v2/${ledger}/transactions/0/metadata/a`)).status).toBe(204);
    await api('POST', v1(ledger, '/transactions/0/revert'));
    const logs = (await api('GET', v1(ledger, '/logs'))).body.cursor.data;
    expect(logs.map((l: { id: number; type: string }) => [l.id, l.type])).toEqual([
      [3, 'NEW_TRANSACTION'],
      [1, 'SET_METADATA'],
      [0, 'NEW_TRANSACTION'],
    ]);
    expect(logs[1].data).toEqual({ targetType: 'TRANSACTION', targetId: 0, metadata: { a: '1' } });
    for (const log of logs) expect(log.hash === '' || /^[A-Za-z0-9+/]{43}=$/.test(log.hash)).toBe(true);
    const page = (await api('GET', v1(ledger, '/logs?pageSize=2'))).body.cursor;
    expect(page.hasMore).toBe(true);
    expect((await api('GET', v1(ledger, `/logs?cursor=${page.next}`))).body.cursor.data.map((l: { id: number }) => l.id)).toEqual([0]);
    // A v1 cursor pages only its own list.
    expect((await api('GET', `/api/ledger/v2/${ledger}/logs?cursor=${page.next}`)).status).toBe(400);
  });
});
