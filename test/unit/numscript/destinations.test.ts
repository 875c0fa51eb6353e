import { allocate } from '../../../numscript/allocation';
import { MemoryStore } from './memory-store';
import { failure, run } from './run';

const send = (amount: string, destination: string) => `send ${amount} (\n source = @world\n destination = ${destination}\n)`;

describe('numscript destinations', () => {
  it('sends to one account', async () => {
    expect((await run(send('[USD/2 100]', '@users:001'))).moves).toEqual(['world>users:001:100 USD/2']);
  });

  it('splits 100 into 1/3, 1/3, remaining as 34, 33, 33 (leftover units go to the first parts)', async () => {
    expect((await run(send('[USD 100]', '{ 1/3 to @a  1/3 to @b  remaining to @c }'))).moves).toEqual([
      'world>a:34 USD',
      'world>b:33 USD',
      'world>c:33 USD',
    ]);
  });

  it('splits 7 into 50%/50% as 4 and 3', async () => {
    expect((await run(send('[USD 7]', '{ 50% to @a  50% to @b }'))).moves).toEqual(['world>a:4 USD', 'world>b:3 USD']);
  });

  it('uses exact decimal percentages (12.5% of 1000 is 125)', async () => {
    expect((await run(send('[USD 1000]', '{ 12.5% to @fees  remaining to @merchant }'))).moves).toEqual([
      'world>fees:125 USD',
      'world>merchant:875 USD',
    ]);
  });

  it('rounds deterministically: floors, then one unit each, in order, the remaining part included', () => {
    const third = { num: 1n, den: 3n };
    expect(allocate(100n, [third, third, third])).toEqual([34n, 33n, 33n]);
    expect(allocate(2n, [third, third, third])).toEqual([1n, 1n, 0n]);
    expect(
      allocate(1n, [
        { num: 1n, den: 2n },
        { num: 1n, den: 2n },
      ]),
    ).toEqual([1n, 0n]);
    expect(
      allocate(10n, [
        { num: 9n, den: 10n },
        { num: 1n, den: 10n },
      ]),
    ).toEqual([9n, 1n]);
    // A remaining part of 0 still takes part in the order, and may get nothing.
    expect(
      allocate(5n, [
        { num: 1n, den: 1n },
        { num: 0n, den: 1n },
      ]),
    ).toEqual([5n, 0n]);
    // Parts always add up to the amount, for any amount.
    for (let amount = 0n; amount < 50n; amount++) {
      const parts = allocate(amount, [
        { num: 1n, den: 7n },
        { num: 2n, den: 7n },
        { num: 4n, den: 7n },
      ]);
      expect(parts.reduce((a, b) => a + b, 0n)).toBe(amount);
    }
  });

  it('fills in-order destinations up to their max, the rest to remaining', async () => {
    const destination = '{ max [USD 10] to @a  max [USD 5] to @b  remaining to @c }';
    expect((await run(send('[USD 12]', destination))).moves).toEqual(['world>a:10 USD', 'world>b:2 USD']);
    expect((await run(send('[USD 30]', destination))).moves).toEqual(['world>a:10 USD', 'world>b:5 USD', 'world>c:15 USD']);
  });

  it('keeps the rest with the source: only what leaves is posted and debited', async () => {
    const store = new MemoryStore({ src: { USD: 100n } });
    const result = await run(
      `send [USD 100] (source = @src destination = { max [USD 30] to @a  remaining kept })
       send [USD 70] (source = @src destination = { 10% to @b  remaining kept })`,
      { store },
    );
    // The first send kept 70 with @src, so the second one finds exactly the 70 it must cover.
    expect(result.moves).toEqual(['src>a:30 USD', 'src>b:7 USD']);
    expect(await failure(run('send [USD 101] (source = @src destination = { max [USD 1] to @a remaining kept })', { store }))).toMatch(
      /^INSUFFICIENT_FUND/,
    );
  });

  it('pours the funds of several sources in order across several destinations', async () => {
    const store = new MemoryStore({ a: { USD: 5n }, b: { USD: 10n } });
    const result = await run('send [USD 15] (source = { @a @b } destination = { 1/3 to @x  remaining to @y })', { store });
    expect(result.moves).toEqual(['a>x:5 USD', 'b>y:10 USD']);
    const mixed = await run('send [USD 15] (source = { @a @b } destination = { 2/5 to @x  remaining to @y })', { store });
    expect(mixed.moves).toEqual(['a>x:5 USD', 'b>x:1 USD', 'b>y:9 USD']);
  });

  it('nests destinations', async () => {
    const result = await run(send('[USD 100]', '{ 1/2 to { max [USD 20] to @a  remaining to @b }  remaining to { 1/4 to @c  remaining kept } }'));
    expect(result.moves).toEqual(['world>a:20 USD', 'world>b:30 USD', 'world>c:13 USD']);
  });

  it('trims zero-amount postings', async () => {
    expect((await run(send('[USD 1]', '{ 1/2 to @a  1/2 to @b }'))).moves).toEqual(['world>a:1 USD']);
    expect((await run(send('[USD 0]', '@a'))).moves).toEqual([]);
  });

  it('checks allotment totals of variable portions at run time', async () => {
    const script = 'vars { portion $p  portion $q }\n' + send('[USD 10]', '{ $p to @a  $q to @b }');
    expect((await run(script, { vars: { p: '30%', q: '7/10' } })).moves).toEqual(['world>a:3 USD', 'world>b:7 USD']);
    expect(await failure(run(script, { vars: { p: '30%', q: '1/2' } }))).toBe(
      'COMPILATION_FAILED: 4:16: the portions of an allotment must add up to 100% (or use `remaining`)',
    );
    expect(await failure(run(script, { vars: { p: '60%', q: '1/2' } }))).toMatch(/more than 100%/);
  });
});
