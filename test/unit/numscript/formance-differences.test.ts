import { compileNumscript, NumscriptError } from '../../../numscript';
import { compileError } from './compile-error';
import { MemoryStore } from './memory-store';
import { failure, run } from './run';

/**
 * Points where our interpreter was looser or stricter than Formance's, each now doing what Formance does (checked
 * against Formance's interpreter source and conformance corpus), plus the one deliberate difference we keep.
 */
describe('Numscript: the points where we follow Formance', () => {
  it("merges consecutive funds of one account into one posting, as Formance's funds queue", async () => {
    const store = new MemoryStore({ a: { USD: 20n } });
    expect((await run('send [USD 10] (source = { max [USD 4] from @a  @a } destination = @b)', { store })).moves).toEqual(['a>b:10 USD']);
    // Funds of another account in between keep the postings apart.
    expect((await run('send [USD 10] (source = { max [USD 4] from @a  max [USD 2] from @world  @a } destination = @b)', { store })).moves).toEqual([
      'a>b:4 USD',
      'world>b:2 USD',
      'a>b:4 USD',
    ]);
  });

  it('keeps evaluating the fallback sources of an in-order source after the first covered the amount', async () => {
    // @world covers everything, yet the second source's cap is in the wrong asset: Formance refuses the script.
    expect(await failure(run('send [USD 10] (source = { @world  max [EUR 5] from @a } destination = @b)'))).toBe(
      'COMPILATION_FAILED: 1:39: mismatched assets: EUR where USD is sent',
    );
    // The fallbacks are checked, not read: no balance of @a is needed for that.
    const store = new MemoryStore();
    await run('send [USD 10] (source = { @world  max [USD 5] from @a } destination = @b)', { store });
    expect(store.balanceReads).toEqual([]);
  });

  it.each([
    ['monetary', 'USD  10'],
    ['monetary', ' USD 10'],
    ['monetary', 'USD 10 '],
    ['number', '10 '],
    ['number', ' 10'],
    ['portion', ' 30% '],
    ['portion', '30% '],
  ])('refuses a %s variable written %j (extra spaces are not trimmed)', async (type, value) => {
    expect(await failure(run(`vars { ${type} $v }`, { vars: { v: value } }))).toMatch(/^COMPILATION_FAILED: 1:8: variable \$v: expected/);
  });

  it('refuses a meta() value with extra spaces (VALIDATION), as Formance does', async () => {
    const store = new MemoryStore({}, { 'users:1': { fee: ' 30% ', limit: 'USD  10', n: '10 ' } });
    for (const [type, key] of [
      ['portion', 'fee'],
      ['monetary', 'limit'],
      ['number', 'n'],
    ]) {
      expect(await failure(run(`vars { ${type} $v = meta(@users:1, "${key}") }`, { store }))).toMatch(/^VALIDATION: variable \$v: metadata/);
    }
  });

  it("refuses an asset with a `_` like EUR_CENTS, as Formance's lexer ([A-Z][A-Z0-9]*)", () => {
    expect(compileError('send [EUR_CENTS 9] (source = @world destination = @a)')).toMatch(/^1:10: /);
    expect(compileError('send [EUR 9_] (source = @world destination = @a)')).toBe("1:12: expected ']', found '_'");
  });

  it('refuses a final // comment with no newline after it, which Formance does not lex as a comment', () => {
    expect(compileError('send [USD 1] (source = @world destination = @a) // done')).toBe('1:49: a // comment must end with a newline');
  });

  it('takes a comment ended by a newline, the last line included', async () => {
    expect((await run('send [USD 1] (source = @world destination = @a) // done\n')).moves).toEqual(['world>a:1 USD']);
  });

  it("gives a variable with an origin the origin's value and ignores a value passed for it, as Formance", async () => {
    const store = new MemoryStore({}, { a: { limit: 'USD 3' } });
    const result = await run('vars { monetary $m = meta(@a, "limit") }\nsend $m (source = @world destination = @b)', {
      store,
      vars: { m: 'USD 1' },
    });
    expect(result.moves).toEqual(['world>b:3 USD']);
  });

  it('refuses a fallback source whose portions add up to more than 100%, even when the first source covered the amount', async () => {
    const script = 'vars { portion $p  portion $q }\nsend [USD 10] (source = { @world  { $p from @a  $q from @b } } destination = @c)';
    expect(await failure(run(script, { vars: { p: '60%', q: '50%' } }))).toMatch(/^COMPILATION_FAILED: .*more than 100%/);
  });

  it('clamps negative caps to 0: max in sources and destinations, bounded overdrafts', async () => {
    const store = new MemoryStore({ s: { USD: 11n } });
    expect((await run('send [USD 100] (source = { max [USD -50] from @s  @world } destination = @d)', { store })).moves).toEqual(['world>d:100 USD']);
    expect((await run('send [USD 10] (source = @s allowing overdraft up to [USD -10] destination = @d)', { store })).moves).toEqual(['s>d:10 USD']);
    expect((await run('send [USD 100] (source = @world destination = { max [USD 0] - [USD 10] to @a  remaining to @b })')).moves).toEqual([
      'world>b:100 USD',
    ]);
  });

  it('stops evaluating in-order destinations once the amount is placed', async () => {
    // Formance evaluates the cap of the clause after the amount ran out, and nothing after it.
    const script = 'send [USD 10] (source = @world destination = { max [USD 10] to @a  max [USD 5] to @b  max [EUR 1] to @c  remaining to @d })';
    expect((await run(script)).moves).toEqual(['world>a:10 USD']);
    expect(await failure(run('send [USD 10] (source = @world destination = { max [USD 10] to @a  max [EUR 5] to @b  remaining to @d })'))).toBe(
      'COMPILATION_FAILED: 1:72: mismatched assets: EUR where USD is sent',
    );
  });

  it('accepts "+5" for a number (and a monetary amount), as Go big.Int parsing does', async () => {
    const result = await run(
      'vars { number $n  monetary $m }\nsend [USD $n] (source = @world destination = @a)\nsend $m (source = @world destination = @a)',
      {
        vars: { n: '+5', m: 'USD +7' },
      },
    );
    expect(result.moves).toEqual(['world>a:5 USD', 'world>a:7 USD']);
  });

  it("accepts `remaining` anywhere and twice: the last one takes the rest, the others 0, as Formance's interpreter", async () => {
    expect((await run('send [USD 10] (source = @world destination = { remaining to @a  1/2 to @b })')).moves).toEqual([
      'world>a:5 USD',
      'world>b:5 USD',
    ]);
    expect((await run('send [USD 10] (source = @world destination = { 1/2 to @a  remaining to @b  remaining to @c })')).moves).toEqual([
      'world>a:5 USD',
      'world>c:5 USD',
    ]);
  });

  it('keeps string literals as written: a backslash escapes nothing', async () => {
    expect((await run('set_tx_meta("k", "a\\nb \\"q\\"")')).txMetadata).toEqual({ k: 'a\\nb \\"q\\"' });
  });

  it('DIFFERENCE KEPT: variable portions adding up to more than 100% with `remaining` are refused', async () => {
    // Formance would give `remaining` a negative share; we refuse the script instead (COMPILATION_FAILED).
    const script = 'vars { portion $p  portion $q }\nsend [USD 10] (source = @world destination = { $p to @a  $q to @b  remaining to @c })';
    expect(await failure(run(script, { vars: { p: '60%', q: '50%' } }))).toBe(
      'COMPILATION_FAILED: 2:46: the portions of an allotment add up to more than 100%',
    );
  });
});

describe('Numscript: insufficient funds a program can act on', () => {
  it('carries account, asset, needed and available besides the message', async () => {
    const store = new MemoryStore({ 'users:1': { 'USD/2': 30n } });
    let error: unknown;
    try {
      await run('send [USD/2 100] (source = @users:1 allowing overdraft up to [USD/2 20] destination = @shop)', { store });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(NumscriptError);
    expect((error as NumscriptError).code).toBe('INSUFFICIENT_FUND');
    expect((error as NumscriptError).details).toEqual({ account: 'users:1', accounts: ['users:1'], asset: 'USD/2', needed: '100', available: '50' });
  });

  it('names every account of a combined source, the first as `account`', async () => {
    const store = new MemoryStore({ a: { USD: 3n }, b: { USD: 4n } });
    try {
      await run('send [USD 10] (source = { @a @b } destination = @d)', { store });
      throw new Error('expected a refusal');
    } catch (error) {
      expect((error as NumscriptError).details).toEqual({ account: 'a', accounts: ['a', 'b'], asset: 'USD', needed: '10', available: '7' });
    }
  });

  it('gives the part of an allotment that fell short', async () => {
    const store = new MemoryStore({ a: { USD: 100n }, b: { USD: 1n } });
    try {
      await run('send [USD 10] (source = { 50% from @a  remaining from @b } destination = @d)', { store });
      throw new Error('expected a refusal');
    } catch (error) {
      expect((error as NumscriptError).details).toEqual({ account: 'b', accounts: ['b'], asset: 'USD', needed: '5', available: '1' });
    }
  });
});

describe('Numscript feature flags', () => {
  it.each([
    ['send [USD 1] (source = oneof { @world } destination = @a)', 'experimental-oneof'],
    ['vars { monetary $m = overdraft(@a, USD) }', 'experimental-overdraft-function'],
    ['send balance(@a, USD) (source = @world destination = @b)', 'experimental-mid-script-function-call'],
    ['vars { number $x = 1 + 2 }', 'experimental-mid-script-function-call'],
    ['vars { asset $x = get_asset([USD 1]) }', 'experimental-get-asset-function'],
    ['vars { number $x = get_amount([USD 1]) }', 'experimental-get-amount-function'],
    ['vars { number $id }\nset_tx_meta("k", @users:$id)', 'experimental-account-interpolation'],
    ['send [USD 1] (source = @a \\ "RED" allowing unbounded overdraft destination = @b)', 'experimental-asset-colors'],
    ['send [EUR/2 1] (source = @a with scaling through @swap destination = @b)', 'experimental-asset-scaling'],
  ])('refuses %j without %s, and accepts it with the flag given or by pragma', (source, flag) => {
    expect(compileError(source)).toMatch(new RegExp(`enable the feature flag "${flag}"`));
    expect(() => compileNumscript(source, { features: [flag] })).not.toThrow();
    expect(() => compileNumscript(`#![feature("${flag}")]\n${source}`)).not.toThrow();
  });

  it("runs colored sources under Formance's asset naming (COIN in RED is COIN_RED)", async () => {
    const store = new MemoryStore({ src: { COIN_RED: 20n, COIN: 100n } });
    const source = '#![feature("experimental-asset-colors")]\nsend [COIN *] (source = { @src \\ "RED"  @src } destination = @dest)';
    expect((await run(source, { store })).moves).toEqual(['src>dest:20 COIN_RED', 'src>dest:100 COIN']);
  });

  it("refuses asset scaling on a store that cannot list an account's balances at every scale", async () => {
    const source = '#![feature("experimental-asset-scaling")]\nsend [EUR/2 1] (source = @a with scaling through @swap destination = @b)';
    expect(await failure(run(source))).toBe('VALIDATION: asset scaling is not available on this ledger');
  });
});
