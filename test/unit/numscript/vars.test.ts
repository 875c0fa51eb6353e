import { MemoryStore } from './memory-store';
import { failure, run } from './run';

describe('numscript vars', () => {
  const script = `vars {
    account $from  account $to  monetary $amount  portion $fee  number $n  string $note  asset $asset
  }
  send $amount (source = $from allowing unbounded overdraft destination = { $fee to @fees  remaining to $to })
  send [$asset $n] (source = @world destination = $to)
  set_tx_meta("note", $note)`;
  const vars = { from: 'users:001', to: 'users:002:main', amount: 'USD/2 1000', fee: '2.5%', n: '42', note: 'hello', asset: 'EUR' };

  it('takes every type in Formance JSON forms, usable wherever a literal is', async () => {
    const result = await run(script, { vars });
    expect(result.moves).toEqual(['users:001>fees:25 USD/2', 'users:001>users:002:main:975 USD/2', 'world>users:002:main:42 EUR']);
    expect(result.txMetadata).toEqual({ note: 'hello' });
  });

  it('also accepts numbers and bigints for number, fractions for portion, {asset, amount} for monetary', async () => {
    const other = { ...vars, n: 7, fee: '1/4', amount: { asset: 'USD/2', amount: 2n ** 70n } };
    const result = await run(script, { vars: other });
    expect(result.moves).toEqual([
      `users:001>fees:${2n ** 68n} USD/2`,
      `users:001>users:002:main:${3n * 2n ** 68n} USD/2`,
      'world>users:002:main:7 EUR',
    ]);
  });

  it.each([
    [{ amount: undefined }, '2:33: variable $amount: missing value (expected monetary'],
    [{ amount: '[USD/2 100]' }, '2:33: variable $amount: expected monetary "[ASSET n]"'],
    [{ amount: 'USD/2 1.5' }, '2:33: variable $amount: expected monetary "[ASSET n]"'],
    [{ amount: 'USD/2  10' }, '2:33: variable $amount: expected monetary "[ASSET n]"'],
    [{ amount: ' USD/2 10' }, '2:33: variable $amount: expected monetary "[ASSET n]"'],
    [{ n: '10 ' }, '2:65: variable $n: expected integer'],
    [{ fee: ' 30% ' }, '2:51: variable $fee: expected portion'],
    [{ amount: 'usd 1' }, '2:33: variable $amount: expected monetary'],
    [{ from: '@users:001' }, '2:5: variable $from: expected account'],
    [{ from: 'users::1' }, '2:5: variable $from: expected account'],
    [{ fee: '101%' }, '2:51: variable $fee: expected portion'],
    [{ fee: 0.5 }, '2:51: variable $fee: expected portion'],
    [{ n: '4.2' }, '2:65: variable $n: expected integer'],
    [{ n: 1e300 }, '2:65: variable $n: expected integer'],
    [{ note: 5 }, '2:76: variable $note: expected string'],
    [{ asset: 'usd' }, '2:90: variable $asset: expected asset'],
  ])('refuses %j with COMPILATION_FAILED at the declaration', async (change, message) => {
    const given: Record<string, unknown> = { ...vars, ...change };
    for (const key of Object.keys(change)) if (given[key] === undefined) delete given[key];
    const error = await failure(run(script, { vars: given }));
    expect(error.slice(0, message.length + 20)).toBe(`COMPILATION_FAILED: ${message}`);
  });

  it('refuses to send a negative amount (a negative number, or a negative monetary var, which parses as Formance does)', async () => {
    expect(await failure(run('vars { number $n }\nsend [USD $n] (source = @world destination = @a)', { vars: { n: '-3' } }))).toBe(
      'COMPILATION_FAILED: 2:6: cannot send a negative amount (USD -3)',
    );
    expect(await failure(run('vars { monetary $m }\nsend $m (source = @world destination = @a)', { vars: { m: 'USD -3' } }))).toBe(
      'COMPILATION_FAILED: 2:6: cannot send a negative amount (USD -3)',
    );
  });

  it('resolves meta() from account metadata, in declaration order', async () => {
    const store = new MemoryStore(
      {},
      {
        'users:001': { merchant: 'merchants:042', fee: '10%', cap: 'USD/2 500' },
        'merchants:042': { payout: 'banks:9' },
      },
    );
    const result = await run(
      `vars {
        account $user
        account $merchant = meta($user, "merchant")
        account $payout = meta($merchant, "payout")
        portion $fee = meta($user, "fee")
        monetary $cap = meta(@users:001, "cap")
      }
      send $cap (source = @world destination = { $fee to $payout  remaining to $merchant })`,
      { vars: { user: 'users:001' }, store },
    );
    expect(result.moves).toEqual(['world>banks:9:50 USD/2', 'world>merchants:042:450 USD/2']);
  });

  it('refuses missing or ill-typed metadata', async () => {
    const store = new MemoryStore({}, { a: { bad: 'not a monetary' } });
    expect(await failure(run('vars { monetary $m = meta(@a, "missing") }', { store }))).toBe(
      'VALIDATION: variable $m: account @a has no metadata "missing"',
    );
    expect(await failure(run('vars { monetary $m = meta(@a, "bad") }', { store }))).toMatch(
      /^VALIDATION: variable \$m: metadata "bad" of @a is "not a monetary", not a monetary/,
    );
  });

  it('resolves balance() to the current balance as a monetary, and refuses a negative one', async () => {
    const store = new MemoryStore({ 'users:1': { 'USD/2': 1234n, EUR: -1n } });
    const result = await run(
      `vars { account $u  monetary $all = balance($u, USD/2) }
       send $all (source = $u destination = @savings)
       set_tx_meta("moved", $all)`,
      { vars: { u: 'users:1' }, store },
    );
    expect(result.moves).toEqual(['users:1>savings:1234 USD/2']);
    expect(result.txMetadata).toEqual({ moved: 'USD/2 1234' });
    expect(await failure(run('vars { monetary $b = balance(@users:1, EUR) }', { store }))).toMatch(
      /^VALIDATION: variable \$b: balance of @users:1 is negative/,
    );
  });

  it('ignores JSON vars the script does not declare', async () => {
    expect((await run('send [USD 1] (source = @world destination = @a)', { vars: { extra: 'x' } })).moves).toEqual(['world>a:1 USD']);
  });
});
