import { api } from '../../support/http';
import { newLedger, postTransaction, posting } from '../../support/ledger';
import { exportLogs, hashedUpTo, importLogs, ledgerState } from '../../support/ledger-logs';

/** The ledger's log: one V2Log per change, hashed behind the commit, listed, exported, imported and verified. */
describe('ledger logs', () => {
  let ledger: string;

  beforeAll(async () => {
    ledger = await newLedger('logs');
    expect((await postTransaction(ledger, { postings: [posting('world', 'users:1', 100)], reference: 'r1', metadata: { a: '1' } })).status).toBe(200);
    const script = { plain: 'send [USD/2 30] (\n source = @users:1\n destination = @users:2\n)\nset_account_meta(@users:2, "tier", "gold")' };
    expect((await postTransaction(ledger, { script })).status).toBe(200);
    expect((await api('POST', `/api/ledger/v2/${ledger}/accounts/users:1/metadata`, { body: { k: 'v', x: 'y' } })).status).toBe(204);
    expect((await api('POST', `/api/ledger/v2/${ledger}/transactions/0/metadata`, { body: { b: '2' } })).status).toBe(204);
    expect((await api('DELETE', `/api/ledger/v2/${ledger}/accounts/users:1/metadata/x`)).status).toBe(204);
    expect((await api('DELETE', `/api/ledger/v2/${ledger}/transactions/0/metadata/a`)).status).toBe(204);
    expect((await api('POST', `/api/ledger/v2/${ledger}/transactions/1/revert`)).status).toBe(201);
    // No change, no log: deleting an absent key.
    expect((await api('DELETE', `/api/ledger/v2/${ledger}/accounts/users:1/metadata/absent`)).status).toBe(204);
  });

  it('writes one log per change, ids dense from 0, shaped as V2Log, each hashed once the hasher caught up', async () => {
    expect(await hashedUpTo(ledger)).toMatchObject({ logs: 7, lastHashedLogId: 6, lag: 0 });
    const res = await api('GET', `/api/ledger/v2/${ledger}/logs?pageSize=100`);
    expect(res.status).toBe(200);
    const logs = res.body.cursor.data;
    expect(logs.map((l: any) => [l.id, l.type])).toEqual([
      [6, 'REVERTED_TRANSACTION'],
      [5, 'DELETE_METADATA'],
      [4, 'DELETE_METADATA'],
      [3, 'SET_METADATA'],
      [2, 'SET_METADATA'],
      [1, 'NEW_TRANSACTION'],
      [0, 'NEW_TRANSACTION'],
    ]);
    for (const log of logs) {
      expect(Object.keys(log).sort()).toEqual(['data', 'date', 'hash', 'id', 'type']);
      expect(Buffer.from(log.hash, 'base64')).toHaveLength(32);
    }
    const byId = new Map(logs.map((l: any) => [l.id, l.data]));
    expect(byId.get(0)).toEqual({
      transaction: {
        id: 0,
        postings: [posting('world', 'users:1', 100)],
        metadata: { a: '1' },
        reference: 'r1',
        reverted: false,
        timestamp: expect.any(String),
      },
      accountMetadata: {},
    });
    expect(byId.get(1)).toMatchObject({
      transaction: { id: 1, postings: [posting('users:1', 'users:2', 30)] },
      accountMetadata: { 'users:2': { tier: 'gold' } },
    });
    expect(byId.get(2)).toEqual({ targetType: 'ACCOUNT', targetId: 'users:1', metadata: { k: 'v', x: 'y' } });
    expect(byId.get(3)).toEqual({ targetType: 'TRANSACTION', targetId: 0, metadata: { b: '2' } });
    expect(byId.get(4)).toEqual({ targetType: 'ACCOUNT', targetId: 'users:1', key: 'x' });
    expect(byId.get(5)).toEqual({ targetType: 'TRANSACTION', targetId: 0, key: 'a' });
    expect(byId.get(6)).toMatchObject({
      revertedTransaction: { id: 1, reverted: true },
      transaction: { id: 2, postings: [posting('users:2', 'users:1', 30)], metadata: { 'com.formance.spec/state/reverts': '1' } },
    });
  });

  it('pages with a cursor and filters by date', async () => {
    const first = await api('GET', `/api/ledger/v2/${ledger}/logs?pageSize=4`);
    expect(first.body.cursor.data.map((l: any) => l.id)).toEqual([6, 5, 4, 3]);
    const second = await api('GET', `/api/ledger/v2/${ledger}/logs?cursor=${first.body.cursor.next}`);
    expect(second.body.cursor).toMatchObject({ hasMore: false });
    expect(second.body.cursor.data.map((l: any) => l.id)).toEqual([2, 1, 0]);
    const future = await api('GET', `/api/ledger/v2/${ledger}/logs?startTime=2999-01-01T00:00:00Z`);
    expect(future.body.cursor.data).toEqual([]);
    const past = await api('GET', `/api/ledger/v2/${ledger}/logs?endTime=2999-01-01T00:00:00Z&pageSize=100`);
    expect(past.body.cursor.data).toHaveLength(7);
    expect((await api('GET', `/api/ledger/v2/${ledger}/logs?startTime=yesterday`)).status).toBe(400);
    expect((await api('GET', `/api/ledger/v2/nope-${Date.now()}/logs`)).body.errorCode).toBe('LEDGER_NOT_FOUND');
  });

  it('verifies the chain', async () => {
    await hashedUpTo(ledger);
    const res = await api('POST', `/api/ledger/v2/${ledger}/logs/verify`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ valid: true, logs: 7, hashed: 7, checkpoints: 0, mismatches: [], mismatchCount: 0 });
  });

  it('exports newline-delimited V2Logs oldest first, and an import rebuilds the same ledger with the same logs', async () => {
    await hashedUpTo(ledger);
    const exported = await exportLogs(ledger);
    expect(exported.status).toBe(200);
    expect(exported.type).toContain('application/octet-stream');
    const lines = exported.text.trim().split('\n');
    expect(lines).toHaveLength(7);
    expect(lines.map((l) => Number(/"id":(\d+)/.exec(l)![1]))).toEqual([0, 1, 2, 3, 4, 5, 6]);

    const copy = await newLedger('logs-copy');
    const imported = await importLogs(copy, exported.text);
    expect(imported.status).toBe(204);
    expect((await api('GET', `/api/ledger/v2/${copy}/logs/chain`)).body.data.logs).toBe(7);
    expect(await ledgerState(copy)).toEqual(await ledgerState(ledger));
    await hashedUpTo(copy);
    // Same ids, dates and data: the hasher gives the copy the very same chain.
    expect((await exportLogs(copy)).text).toBe(exported.text);
  });

  it('refuses an import into a ledger that is not empty, writing nothing', async () => {
    const exported = await exportLogs(ledger);
    const res = await importLogs(ledger, exported.text, 'application/x-ndjson');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorCode: 'IMPORT', errorMessage: expect.stringContaining('not empty') });
    expect((await api('GET', `/api/ledger/v2/${ledger}/logs/chain`)).body.data.logs).toBe(7);
  });

  it('refuses a gap and a log whose hash does not verify, naming the log', async () => {
    await hashedUpTo(ledger);
    const lines = (await exportLogs(ledger)).text.trim().split('\n');
    const target = await newLedger('logs-bad');
    const gap = await importLogs(target, [...lines.slice(0, 3), ...lines.slice(4)].join('\n'));
    expect(gap.status).toBe(400);
    expect(gap.body).toMatchObject({ errorCode: 'IMPORT', errorDetails: { logId: 4 } });
    const changed = [...lines];
    changed[3] = changed[3].replace('"b":"2"', '"b":"3"');
    expect(changed[3]).not.toBe(lines[3]);
    const tampered = await importLogs(target, changed.join('\n'));
    expect(tampered.status).toBe(400);
    expect(tampered.body).toMatchObject({ errorCode: 'IMPORT', errorDetails: { logId: 3 } });
    expect(tampered.body.errorMessage).toContain('log 3');
    const malformed = await importLogs(target, 'not json\n');
    expect(malformed.body).toMatchObject({ errorCode: 'IMPORT', errorMessage: expect.stringContaining('line 1') });
    expect((await api('GET', `/api/ledger/v2/${target}/logs/chain`)).body.data).toMatchObject({ logs: 0, lag: 0 });
    expect((await api('GET', `/api/ledger/v2/${target}/transactions`)).body.cursor.data).toEqual([]);
  });

  it('refuses a JSON body on import: an export is sent as a stream', async () => {
    const target = await newLedger('logs-json');
    const res = await api('POST', `/api/ledger/v2/${target}/logs/import`, { body: { id: 0 } });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
  });
});
