import { api } from '../../support/http';
import { newLedger, posting, postTransaction } from '../../support/ledger';

describe('ledger transactions over HTTP', () => {
  let ledger: string;
  beforeAll(async () => {
    ledger = await newLedger();
  });

  it('commits postings with dense txids from 0 and exact volumes', async () => {
    const first = await postTransaction(ledger, { postings: [posting('world', 'users:1', 100)], reference: 'r-1', metadata: { a: 'b' } });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({
      id: 0,
      timestamp: expect.any(String),
      insertedAt: expect.any(String),
      postings: [posting('world', 'users:1', 100)],
      reference: 'r-1',
      metadata: { a: 'b' },
      reverted: false,
      preCommitVolumes: { world: { 'USD/2': { input: 0, output: 0, balance: 0 } }, 'users:1': { 'USD/2': { input: 0, output: 0, balance: 0 } } },
      postCommitVolumes: {
        world: { 'USD/2': { input: 0, output: 100, balance: -100 } },
        'users:1': { 'USD/2': { input: 100, output: 0, balance: 100 } },
      },
    });
    const second = await postTransaction(ledger, { postings: [posting('users:1', 'users:2', 30)] });
    expect(second.body.data.id).toBe(1);
    expect(second.body.data.preCommitVolumes['users:1']['USD/2']).toEqual({ input: 100, output: 0, balance: 100 });
  });

  it('keeps amounts of any size exact end to end', async () => {
    const big = 123456789012345678901234567890n;
    const res = await postTransaction(ledger, { postings: [posting('world', 'big:holder', big, 'BTC/8')] });
    expect(res.status).toBe(200);
    expect(res.text).toContain('"amount":123456789012345678901234567890');
    const account = await api('GET', `/api/ledger/v2/${ledger}/accounts/big:holder`);
    expect(account.body.data.volumes['BTC/8'].balance).toBe(big);
  });

  it.each([
    ['insufficient funds', { postings: [posting('users:empty', 'users:2', 1)] }, 400, 'INSUFFICIENT_FUND'],
    ['no postings', { postings: [] }, 400, 'NO_POSTINGS'],
    ['empty body', {}, 400, 'NO_POSTINGS'],
    [
      'postings and script',
      { postings: [posting('world', 'a', 1)], script: { plain: 'send [USD/2 1] (source = @world destination = @a)' } },
      400,
      'VALIDATION',
    ],
    ['bad address', { postings: [posting('world', 'bad address', 1)] }, 400, 'VALIDATION'],
    ['bad asset', { postings: [posting('world', 'a', 1, 'usd')] }, 400, 'VALIDATION'],
    ['negative amount', { postings: [posting('world', 'a', -1)] }, 400, 'VALIDATION'],
    ['non-string metadata', { postings: [posting('world', 'a', 1)], metadata: { n: 1 } }, 400, 'VALIDATION'],
  ])('refuses %s', async (_name, body, status, code) => {
    const res = await postTransaction(ledger, body);
    expect(res.status).toBe(status);
    expect(res.body.errorCode).toBe(code);
  });

  it('lets a posting spend what an earlier posting of the same transaction brought', async () => {
    const res = await postTransaction(ledger, { postings: [posting('world', 'chain:a', 5), posting('chain:a', 'chain:b', 5)] });
    expect(res.status).toBe(200);
  });

  it('answers 409 for a reused reference and 404 LEDGER_NOT_FOUND for an unknown ledger', async () => {
    await postTransaction(ledger, { postings: [posting('world', 'a', 1)], reference: 'dup' });
    const again = await postTransaction(ledger, { postings: [posting('world', 'a', 2)], reference: 'dup' });
    expect(again.status).toBe(409);
    expect(again.body.errorCode).toBe('CONFLICT');
    const missing = await postTransaction('no-such-ledger-x', { postings: [posting('world', 'a', 1)] });
    expect(missing.status).toBe(404);
    expect(missing.body.errorCode).toBe('LEDGER_NOT_FOUND');
  });

  it('replays an Idempotency-Key with Idempotency-Hit and refuses another body under it', async () => {
    const body = { postings: [posting('world', 'idem:1', 7)] };
    const first = await postTransaction(ledger, body, { 'Idempotency-Key': 'k-serial' });
    const second = await postTransaction(ledger, body, { 'Idempotency-Key': 'k-serial' });
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotency-hit')).toBe('true');
    expect(first.headers.get('idempotency-hit')).toBeNull();
    expect(second.body.data).toEqual(first.body.data);
    const other = await postTransaction(ledger, { postings: [posting('world', 'idem:1', 8)] }, { 'Idempotency-Key': 'k-serial' });
    expect(other.status).toBe(409);
  });

  it('dry-runs without consuming a txid or changing balances', async () => {
    const dedicated = await newLedger('dry');
    const dry = await postTransaction(dedicated, { postings: [posting('world', 'dry:1', 5)] }, {}, '?dryRun=true');
    expect(dry.status).toBe(200);
    expect(dry.body.data.postCommitVolumes['dry:1']['USD/2'].balance).toBe(5);
    const account = await api('GET', `/api/ledger/v2/${dedicated}/accounts/dry:1`);
    expect(account.body.data).toEqual({ address: 'dry:1', metadata: {}, volumes: {}, effectiveVolumes: {} });
    const real = await postTransaction(dedicated, { postings: [posting('world', 'dry:1', 5)] });
    expect(real.body.data.id).toBe(0);
    const failing = await postTransaction(dedicated, { postings: [posting('dry:1', 'x', 6)] }, {}, '?dryRun=true');
    expect(failing.body.errorCode).toBe('INSUFFICIENT_FUND');
    // Plain postings are refused with the facts a script's refusal carries: account, asset, needed, available.
    expect(failing.body.errorMessage).toBe('account "dry:1" has insufficient funds for posting 0: needed USD/2 6, available USD/2 5');
    expect(failing.body.errorDetails).toEqual({ account: 'dry:1', accounts: ['dry:1'], asset: 'USD/2', needed: '6', available: '5' });
  });

  it('reverts once, links the revert, and refuses a revert that would overdraw unless forced', async () => {
    const dedicated = await newLedger('rev');
    await postTransaction(dedicated, { postings: [posting('world', 'rev:a', 10)] });
    const spend = await postTransaction(dedicated, { postings: [posting('rev:a', 'rev:b', 10)] });
    const revert = await api('POST', `/api/ledger/v2/${dedicated}/transactions/${spend.body.data.id}/revert`, {
      body: { metadata: { why: 'test' } },
    });
    expect(revert.status).toBe(201);
    expect(revert.body.data.postings).toEqual([posting('rev:b', 'rev:a', 10)]);
    expect(revert.body.data.metadata).toEqual({ why: 'test', 'com.formance.spec/state/reverts': '1' });
    const twice = await api('POST', `/api/ledger/v2/${dedicated}/transactions/1/revert`);
    expect(twice.status).toBe(400);
    expect(twice.body.errorCode).toBe('ALREADY_REVERT');
    const original = await api('GET', `/api/ledger/v2/${dedicated}/transactions/1`);
    expect(original.body.data.reverted).toBe(true);
    // rev:a spends its 10 again, so reverting the funding would take it below zero
    await postTransaction(dedicated, { postings: [posting('rev:a', 'rev:c', 10)] });
    const refused = await api('POST', `/api/ledger/v2/${dedicated}/transactions/0/revert`);
    expect(refused.body.errorCode).toBe('INSUFFICIENT_FUND');
    expect(refused.body.errorDetails).toEqual({ account: 'rev:a', accounts: ['rev:a'], asset: 'USD/2', needed: '10', available: '0' });
    const forced = await api('POST', `/api/ledger/v2/${dedicated}/transactions/0/revert?force=true`);
    expect(forced.status).toBe(201);
    const unknown = await api('POST', `/api/ledger/v2/${dedicated}/transactions/999/revert`);
    expect(unknown.status).toBe(404);
  });

  it('adds transaction and account metadata, with SAVED_METADATA events in the outbox', async () => {
    const res = await postTransaction(ledger, { postings: [posting('world', 'meta:1', 1)] });
    const id = res.body.data.id;
    expect((await api('POST', `/api/ledger/v2/${ledger}/transactions/${id}/metadata`, { body: { k: 'v' } })).status).toBe(204);
    expect((await api('GET', `/api/ledger/v2/${ledger}/transactions/${id}`)).body.data.metadata).toEqual({ k: 'v' });
    expect((await api('POST', `/api/ledger/v2/${ledger}/accounts/meta:1/metadata`, { body: { role: 'user' } })).status).toBe(204);
    expect((await api('GET', `/api/ledger/v2/${ledger}/accounts/meta:1`)).body.data.metadata).toEqual({ role: 'user' });
    expect((await api('POST', `/api/ledger/v2/${ledger}/transactions/99999/metadata`, { body: { k: 'v' } })).status).toBe(404);
  });
});
