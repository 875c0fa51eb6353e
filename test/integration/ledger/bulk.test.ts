import { api } from '../../support/http';
import { balance, fund } from '../../support/ledger-fixtures';
import { newLedger } from '../../support/ledger';

const posting = (source: string, destination: string, amount: number) => ({ source, destination, amount, asset: 'USD/2' });
const send = (source: string, destination: string, amount: number) => ({
  action: 'CREATE_TRANSACTION',
  data: { postings: [{ source, destination, amount, asset: 'USD/2' }] },
});
const bulk = (ledger: string, elements: unknown[], query = '') => api('POST', `/api/ledger/v2/${ledger}/_bulk${query}`, { body: elements });
const account = async (ledger: string, address: string) => (await api('GET', `/api/ledger/v2/${ledger}/accounts/${address}`)).body.data;

describe('ledger bulk (POST /{ledger}/_bulk) and metadata deletion', () => {
  it('runs every action in order and answers each result', async () => {
    const ledger = await newLedger('bulk');
    const res = await bulk(ledger, [
      send('world', 'users:1', 100),
      { action: 'ADD_METADATA', data: { targetType: 'ACCOUNT', targetId: 'users:1', metadata: { tier: 'gold', region: 'eu' } } },
      { action: 'ADD_METADATA', data: { targetType: 'TRANSACTION', targetId: 0, metadata: { note: 'first' } } },
      { action: 'DELETE_METADATA', data: { targetType: 'ACCOUNT', targetId: 'users:1', key: 'region' } },
      { action: 'REVERT_TRANSACTION', data: { id: 0 } },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { responseType: string }) => r.responseType)).toEqual([
      'CREATE_TRANSACTION',
      'ADD_METADATA',
      'ADD_METADATA',
      'DELETE_METADATA',
      'REVERT_TRANSACTION',
    ]);
    expect(res.body.data[0].data).toMatchObject({ id: 0, postings: [{ source: 'world', destination: 'users:1', amount: 100, asset: 'USD/2' }] });
    expect(res.body.data[4].data).toMatchObject({ id: 1, postings: [{ source: 'users:1', destination: 'world', amount: 100 }] });
    expect((await account(ledger, 'users:1')).metadata).toEqual({ tier: 'gold' });
    expect(await balance(ledger, 'users:1')).toBe(0n);
    expect((await api('GET', `/api/ledger/v2/${ledger}/transactions/0`)).body.data).toMatchObject({ metadata: { note: 'first' }, reverted: true });
  });

  it('atomic: one failing element writes nothing, not even the elements before it', async () => {
    const ledger = await newLedger('bulk');
    await fund(ledger, 'users:1', 50);
    const res = await bulk(ledger, [send('world', 'never:1', 10), send('users:1', 'shop', 80), send('world', 'never:2', 10)], '?atomic=true');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorCode: 'INSUFFICIENT_FUND', errorDetails: { index: 1 } });
    expect(res.body.data).toBeUndefined();
    expect(await balance(ledger, 'never:1')).toBe(0n);
    expect(await balance(ledger, 'never:2')).toBe(0n);
    expect(await balance(ledger, 'users:1')).toBe(50n);
    // No txid was consumed: the next transaction takes the one after the funding.
    expect((await bulk(ledger, [send('users:1', 'shop', 20)], '?atomic=true')).body.data[0].data.id).toBe(1);
  });

  it('not atomic: stops at the first failure, or goes on with continueOnFailure; earlier elements stay committed', async () => {
    const ledger = await newLedger('bulk');
    const elements = [send('world', 'a', 5), send('empty', 'b', 5), send('world', 'c', 5)];
    const stopped = await bulk(ledger, elements);
    expect(stopped.status).toBe(400);
    expect(stopped.body).toMatchObject({ errorCode: 'INSUFFICIENT_FUND', errorDetails: { index: 1 } });
    expect(stopped.body.data.map((r: { responseType: string }) => r.responseType)).toEqual(['CREATE_TRANSACTION', 'ERROR']);
    expect(await balance(ledger, 'a')).toBe(5n);
    expect(await balance(ledger, 'c')).toBe(0n);
    const continued = await bulk(ledger, elements, '?continueOnFailure=true');
    expect(continued.body.data.map((r: { responseType: string }) => r.responseType)).toEqual(['CREATE_TRANSACTION', 'ERROR', 'CREATE_TRANSACTION']);
    expect(continued.body.data[1]).toMatchObject({ errorCode: 'INSUFFICIENT_FUND', errorDescription: expect.any(String) });
    expect(await balance(ledger, 'c')).toBe(5n);
  });

  it('an element idempotency key (ik) replays its transaction instead of posting twice', async () => {
    const ledger = await newLedger('bulk');
    const element = { ...send('world', 'users:9', 7), ik: 'order-9' };
    const first = await bulk(ledger, [element]);
    const again = await bulk(ledger, [element]);
    expect(again.body.data[0].data.id).toBe(first.body.data[0].data.id);
    expect(await balance(ledger, 'users:9')).toBe(7n);
    const other = await bulk(ledger, [{ ...send('world', 'users:9', 8), ik: 'order-9' }]);
    // A failed element makes the bulk a 400; a code of another status (CONFLICT) stays in errorDetails and in the result.
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ errorCode: 'VALIDATION', errorDetails: { index: 0, errorCode: 'CONFLICT' } });
    expect(other.body.data[0]).toMatchObject({ responseType: 'ERROR', errorCode: 'CONFLICT' });
  });

  it('refuses what it cannot run with a clear 4xx', async () => {
    const ledger = await newLedger('bulk');
    expect((await bulk('no-such-ledger-bulk', [send('world', 'a', 1)])).body.errorCode).toBe('LEDGER_NOT_FOUND');
    expect((await bulk(ledger, [{ action: 'EXPLODE', data: {} }])).body.errorCode).toBe('VALIDATION');
    expect((await bulk(ledger, [{ action: 'REVERT_TRANSACTION', data: { id: -1 } }])).status).toBe(400);
    const badTarget = await bulk(ledger, [{ action: 'ADD_METADATA', data: { targetType: 'TRANSACTION', targetId: 'k', metadata: { a: '1' } } }]);
    expect(badTarget.body).toMatchObject({ errorCode: 'VALIDATION', errorMessage: expect.stringContaining('body[0].data.targetId') });
    const tooMany = await bulk(
      ledger,
      Array.from({ length: 1001 }, () => ({ action: 'ADD_METADATA', data: { targetType: 'ACCOUNT', targetId: 'a', metadata: {} } })),
    );
    expect(tooMany.body.errorCode).toBe('VALIDATION');
    const huge = await bulk(ledger, [
      { action: 'ADD_METADATA', data: { targetType: 'TRANSACTION', targetId: '2841417428787861127168', metadata: { a: '1' } } },
    ]);
    expect(huge.body).toMatchObject({ errorCode: 'VALIDATION', errorDetails: { index: 0 } });
    expect((await api('GET', `/api/ledger/v2/${ledger}/transactions/2841417428787861127168`)).status).toBe(400);
    expect((await api('GET', `/api/ledger/${ledger}/transactions/9223372036854775808`)).status).toBeLessThan(500);
    const missing = await bulk(ledger, [{ action: 'REVERT_TRANSACTION', data: { id: 99 } }]);
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      errorCode: 'VALIDATION',
      errorMessage: expect.stringContaining('transaction 99 not found'),
      errorDetails: { index: 0, errorCode: 'NOT_FOUND' },
    });
    const missingAtomic = await bulk(ledger, [{ action: 'REVERT_TRANSACTION', data: { id: 99 } }], '?atomic=true');
    expect(missingAtomic.status).toBe(400);
    expect(missingAtomic.body).toMatchObject({ errorCode: 'VALIDATION', errorDetails: { index: 0, errorCode: 'NOT_FOUND' } });
  });

  it('names the invalid field of an element, whatever its action', async () => {
    const ledger = await newLedger('bulk');
    const message = async (element: unknown) => {
      const res = await bulk(ledger, [send('world', 'a', 1), element]);
      expect(res.status).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
      return res.body.errorMessage as string;
    };
    expect(await message({ action: 'REVERT_TRANSACTION', data: { id: 'abc' } })).toMatch(/^body\[1\]\.data\.id: must be an integer/);
    expect(await message({ action: 'REVERT_TRANSACTION', data: {} })).toBe('body[1].data: missing required field "id"');
    expect(await message({ action: 'DELETE_METADATA', data: { targetType: 'ACCOUNT', targetId: 'a' } })).toBe(
      'body[1].data: missing required field "key"',
    );
    expect(await message({ action: 'CREATE_TRANSACTION', data: { postings: [posting('world', 'a', -1)] } })).toMatch(
      /^body\[1\]\.data\.postings\[0\]\.amount: /,
    );
    expect(await message({ action: 'EXPLODE', data: {} })).toBe(
      'body[1].action: must be one of ["CREATE_TRANSACTION","ADD_METADATA","REVERT_TRANSACTION","DELETE_METADATA"]',
    );
    expect(await message({ data: {} })).toBe('body[1]: missing required field "action"');
    expect(await message('REVERT_TRANSACTION')).toBe('body[1]: must be object');
    // Refused before anything ran: the first element wrote nothing.
    expect(await balance(ledger, 'a')).toBe(0n);
  });

  it("an unknown schemaVersion is the request's 404 NOT_FOUND, as on the single routes, and writes nothing", async () => {
    const ledger = await newLedger('bulk');
    await fund(ledger, 'b', 5);
    for (const query of ['?schemaVersion=nope', '?schemaVersion=nope&atomic=true']) {
      const res = await bulk(ledger, [send('world', 'a', 1)], query);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ errorCode: 'NOT_FOUND', errorMessage: expect.stringContaining('nope') });
    }
    const single = await api('POST', `/api/ledger/v2/${ledger}/transactions?schemaVersion=nope`, { body: { postings: [posting('world', 'a', 1)] } });
    expect(single.status).toBe(404);
    expect(single.body.errorCode).toBe('NOT_FOUND');
    const revert = await api('POST', `/api/ledger/v2/${ledger}/transactions/0/revert?schemaVersion=nope`);
    expect(revert.status).toBe(404);
    expect(revert.body).toMatchObject({ errorCode: 'NOT_FOUND', errorMessage: expect.stringContaining('nope') });
    expect(await balance(ledger, 'a')).toBe(0n);
    expect(await balance(ledger, 'b')).toBe(5n);
  });

  it('DELETE metadata routes remove one key; an absent key is a no-op; an unknown transaction is 404', async () => {
    const ledger = await newLedger('bulk');
    await bulk(ledger, [
      send('world', 'users:2', 1),
      { action: 'ADD_METADATA', data: { targetType: 'ACCOUNT', targetId: 'users:2', metadata: { a: '1', b: '2' } } },
      { action: 'ADD_METADATA', data: { targetType: 'TRANSACTION', targetId: '0', metadata: { a: '1', b: '2' } } },
    ]);
    expect((await api('DELETE', `/api/ledger/v2/${ledger}/accounts/users:2/metadata/a`)).status).toBe(204);
    expect((await api('DELETE', `/api/ledger/v2/${ledger}/accounts/users:2/metadata/a`)).status).toBe(204);
    expect((await account(ledger, 'users:2')).metadata).toEqual({ b: '2' });
    expect((await api('DELETE', `/api/ledger/v2/${ledger}/transactions/0/metadata/b`)).status).toBe(204);
    expect((await api('GET', `/api/ledger/v2/${ledger}/transactions/0`)).body.data.metadata).toEqual({ a: '1' });
    expect((await api('DELETE', `/api/ledger/v2/${ledger}/transactions/42/metadata/a`)).status).toBe(404);
  });
});
