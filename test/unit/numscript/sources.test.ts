import { MemoryStore } from './memory-store';
import { failure, run } from './run';

const send = (amount: string, source: string) => `send ${amount} (\n source = ${source}\n destination = @dest\n)`;

describe('numscript sources', () => {
  const store = () => new MemoryStore({ a: { USD: 30n }, b: { USD: 50n }, c: { USD: 100n }, neg: { USD: -5n } });

  it('takes from one account within its balance, and refuses beyond it naming the account and asset', async () => {
    expect((await run(send('[USD 30]', '@a'), { store: store() })).moves).toEqual(['a>dest:30 USD']);
    expect(await failure(run(send('[USD 31]', '@a'), { store: store() }))).toBe(
      'INSUFFICIENT_FUND: account(s) @a had insufficient funds: needed USD 31, could take USD 30',
    );
  });

  it('lets @world go negative without limit and without reading its balance', async () => {
    const memory = store();
    expect((await run(send('[USD 1000000]', '@world'), { store: memory })).moves).toEqual(['world>dest:1000000 USD']);
    expect(memory.balanceReads).toEqual([]);
  });

  it('takes from an in-order list one account after the other, reading only what it needs', async () => {
    const memory = store();
    expect((await run(send('[USD 60]', '{ @a @b @c }'), { store: memory })).moves).toEqual(['a>dest:30 USD', 'b>dest:30 USD']);
    expect(memory.balanceReads).toEqual(['a USD', 'b USD']);
    expect(await failure(run(send('[USD 181]', '{ @a @b @c }'), { store: store() }))).toMatch(/^INSUFFICIENT_FUND: account\(s\) @a, @b, @c /);
  });

  it('caps a source with max', async () => {
    expect((await run(send('[USD 40]', '{ max [USD 10] from @a  @b }'), { store: store() })).moves).toEqual(['a>dest:10 USD', 'b>dest:30 USD']);
    expect((await run(send('[USD 5]', '{ max [USD 10] from @a  @b }'), { store: store() })).moves).toEqual(['a>dest:5 USD']);
  });

  it('allows a bounded overdraft up to its limit only', async () => {
    expect((await run(send('[USD 45]', '@a allowing overdraft up to [USD 15]'), { store: store() })).moves).toEqual(['a>dest:45 USD']);
    expect(await failure(run(send('[USD 46]', '@a allowing overdraft up to [USD 15]'), { store: store() }))).toMatch(
      /^INSUFFICIENT_FUND: account\(s\) @a had insufficient funds: needed USD 46, could take USD 45/,
    );
    // An account already negative has used part of its overdraft.
    expect((await run(send('[USD 5]', '@neg allowing overdraft up to [USD 10]'), { store: store() })).moves).toEqual(['neg>dest:5 USD']);
    expect(await failure(run(send('[USD 1]', '@neg'), { store: store() }))).toMatch(/^INSUFFICIENT_FUND: .*@neg/);
  });

  it('allows an unbounded overdraft where the script says so', async () => {
    const result = await run(send('[USD 1000]', '{ @a  @b allowing unbounded overdraft }'), { store: store() });
    expect(result.moves).toEqual(['a>dest:30 USD', 'b>dest:970 USD']);
  });

  it('splits a portioned source and requires each part to be covered', async () => {
    // 99/2 floors to 49; the leftover unit goes to the first part.
    const result = await run(send('[USD 99]', '{ 1/2 from @b  remaining from { @a @c } }'), { store: store() });
    expect(result.moves).toEqual(['b>dest:50 USD', 'a>dest:30 USD', 'c>dest:19 USD']);
    expect(await failure(run(send('[USD 120]', '{ 50% from @b  remaining from @c }'), { store: store() }))).toBe(
      'INSUFFICIENT_FUND: account(s) @b had insufficient funds: needed USD 60, could take USD 50',
    );
  });

  it('sends all available funds with [ASSET *], bounded by max and overdraft limits', async () => {
    expect((await run(send('[USD *]', '{ @a @b }'), { store: store() })).moves).toEqual(['a>dest:30 USD', 'b>dest:50 USD']);
    expect((await run(send('[USD *]', '{ @a  max [USD 7] from @world }'), { store: store() })).moves).toEqual(['a>dest:30 USD', 'world>dest:7 USD']);
    expect((await run(send('[USD *]', '@a allowing overdraft up to [USD 5]'), { store: store() })).moves).toEqual(['a>dest:35 USD']);
    expect((await run(send('[USD *]', '@empty'), { store: store() })).moves).toEqual([]);
    expect(await failure(run(send('[USD *]', '@world'), { store: store() }))).toBe(
      'COMPILATION_FAILED: 2:11: cannot send all funds from @world: its overdraft is unbounded',
    );
    expect(await failure(run(send('[USD *]', '{ 1/2 from @a remaining from @b }'), { store: store() }))).toMatch(
      /^COMPILATION_FAILED: 2:11: cannot send all funds/,
    );
  });

  it('lets the same account appear twice without taking its funds twice', async () => {
    expect(await failure(run(send('[USD 40]', '{ @a @a }'), { store: store() }))).toMatch(/^INSUFFICIENT_FUND: account\(s\) @a /);
  });

  it('refuses limits in another asset than the one sent', async () => {
    expect(await failure(run(send('[USD 1]', 'max [EUR 5] from @a'), { store: store() }))).toBe(
      'COMPILATION_FAILED: 2:15: mismatched assets: EUR where USD is sent',
    );
    expect(await failure(run(send('[USD 1]', '@a allowing overdraft up to [EUR 5]'), { store: store() }))).toMatch(
      /^COMPILATION_FAILED: 2:39: mismatched assets/,
    );
  });
});
