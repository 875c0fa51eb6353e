import { createDb, type Db } from '../../../db/knex';
import { api } from '../../support/http';
import { ledgerViolations } from '../../support/ledger-invariants';
import { newLedger, posting, postTransaction } from '../../support/ledger';

const script = (plain: string, vars: Record<string, unknown> = {}) => ({ script: { plain, vars } });
const balance = async (ledger: string, address: string, asset = 'USD/2') =>
  (await api('GET', `/api/ledger/v2/${ledger}/accounts/${address}`)).body.data.volumes[asset]?.balance ?? 0;

describe('ledger transactions from Numscript', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 2 });
  });
  afterAll(() => db.destroy());

  it('runs a script with vars, portions, tx and account metadata', async () => {
    const ledger = await newLedger('ns');
    await postTransaction(ledger, { postings: [posting('world', 'users:1', 1000)] });
    const res = await postTransaction(ledger, {
      ...script(
        `vars { monetary $amount  account $merchant }
         send $amount ( source = @users:1  destination = { 10% to @fees  remaining to $merchant } )
         set_tx_meta("order", "42")
         set_account_meta($merchant, "kind", "merchant")`,
        { amount: 'USD/2 333', merchant: 'shops:1' },
      ),
      metadata: { channel: 'web' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.postings).toEqual([posting('users:1', 'fees', 34), posting('users:1', 'shops:1', 299)]);
    expect(res.body.data.metadata).toEqual({ channel: 'web', order: '42' });
    expect((await api('GET', `/api/ledger/v2/${ledger}/accounts/shops:1`)).body.data.metadata).toEqual({ kind: 'merchant' });
    expect(await balance(ledger, 'users:1')).toBe(667);
    const event = await db('events_outbox')
      .whereRaw(`payload::jsonb->>'ledger' = ?`, [ledger])
      .andWhere({ type: 'COMMITTED_TRANSACTIONS' })
      .orderBy('seq', 'desc')
      .first();
    expect(JSON.parse(event.payload).accountMetadata).toEqual({ 'shops:1': { kind: 'merchant' } });
  });

  it('sends all available funds and honours overdraft clauses', async () => {
    const ledger = await newLedger('ns');
    await postTransaction(ledger, { postings: [posting('world', 'a', 50)] });
    const all = await postTransaction(ledger, script('send [USD/2 *] ( source = @a destination = @b )'));
    expect(all.body.data.postings).toEqual([posting('a', 'b', 50)]);
    const over = await postTransaction(ledger, script('send [USD/2 80] ( source = @b allowing overdraft up to [USD/2 30] destination = @c )'));
    expect(over.status).toBe(200);
    expect(await balance(ledger, 'b')).toBe(-30);
    const beyond = await postTransaction(ledger, script('send [USD/2 1] ( source = @b allowing overdraft up to [USD/2 30] destination = @c )'));
    expect(beyond.body.errorCode).toBe('INSUFFICIENT_FUND');
    expect(beyond.body.errorDetails).toEqual({ account: 'b', accounts: ['b'], asset: 'USD/2', needed: '1', available: '0' });
  });

  it.each([
    ['a syntax error with its position', 'send [USD/2 10] ( source = @world destination = )', {}, 'COMPILATION_FAILED', /^\d+:\d+: /],
    ['a missing var', 'vars { monetary $m } send $m ( source = @world destination = @x )', {}, 'COMPILATION_FAILED', /\$m/],
    ['insufficient funds', 'send [USD/2 10] ( source = @nobody destination = @x )', {}, 'INSUFFICIENT_FUND', /./],
  ])('refuses %s', async (_name, plain, vars, code, message) => {
    const ledger = await newLedger('ns');
    const res = await postTransaction(ledger, script(plain, vars));
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe(code);
    expect(res.body.errorMessage).toMatch(message);
  });

  it('refuses a metadata key set by both the script and the request', async () => {
    const ledger = await newLedger('ns');
    const res = await postTransaction(ledger, {
      ...script('send [USD/2 1] ( source = @world destination = @x )\nset_tx_meta("k", "s")'),
      metadata: { k: 'r' },
    });
    expect(res.body.errorCode).toBe('METADATA_OVERRIDE');
  });

  it('locks what a script reads: concurrent `send [*]` and fixed debits never overdraw', async () => {
    const ledger = await newLedger('ns');
    await postTransaction(ledger, { postings: [posting('world', 'pool', 100)] });
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        postTransaction(
          ledger,
          i % 6 === 0
            ? script(`send [USD/2 *] ( source = { @pool @pool:reserve } destination = @sink:${i} )`)
            : script(`vars { monetary $m } send $m ( source = @pool destination = @sink:${i} )`, { m: 'USD/2 9' }),
        ),
      ),
    );
    for (const r of results) expect([200, 400]).toContain(r.status);
    // a `send [*]` that finds the pool empty has nothing to post
    for (const r of results.filter((x) => x.status === 400)) expect(['INSUFFICIENT_FUND', 'NO_POSTINGS']).toContain(r.body.errorCode);
    expect(await balance(ledger, 'pool')).toBeGreaterThanOrEqual(0);
    expect(await ledgerViolations(db, ledger)).toEqual([]);
  });
});
