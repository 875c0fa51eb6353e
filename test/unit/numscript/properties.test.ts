import fc from 'fast-check';
import { allocate } from '../../../numscript/allocation';
import { makePortion } from '../../../numscript/values';
import { MemoryStore } from './memory-store';
import { failure, run } from './run';

describe('numscript properties', () => {
  it('allocation is exact: parts add up to the amount and each is its floor or one more, extra units first', () => {
    const amount = fc.bigInt({ min: 0n, max: 2n ** 130n });
    const weights = fc.array(fc.bigInt({ min: 0n, max: 1000n }), { minLength: 1, maxLength: 8 }).filter((w) => w.some((x) => x > 0n));
    fc.assert(
      fc.property(amount, weights, (total, w) => {
        const sum = w.reduce((a, b) => a + b, 0n);
        const portions = w.map((x) => makePortion(x, sum)!);
        const parts = allocate(total, portions);
        expect(parts.reduce((a, b) => a + b, 0n)).toBe(total);
        const extras = parts.map((part, i) => part - (total * portions[i].num) / portions[i].den);
        extras.forEach((extra) => expect(extra === 0n || extra === 1n).toBe(true));
        // The extra units go to a prefix of the parts.
        expect(extras.join('')).toMatch(/^1*0*$/);
      }),
    );
  });

  it('an in-order source either covers the amount exactly or fails with INSUFFICIENT_FUND', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.bigInt({ min: 0n, max: 10n ** 20n }), { minLength: 1, maxLength: 5 }),
        fc.bigInt({ min: 0n, max: 5n * 10n ** 20n }),
        async (balances, amount) => {
          const accounts = balances.map((_, i) => `s${i}`);
          const store = new MemoryStore(Object.fromEntries(accounts.map((a, i) => [a, { 'USD/2': balances[i] }])));
          const script = `send [USD/2 ${amount}] (source = { ${accounts.map((a) => `@${a}`).join(' ')} } destination = @d)`;
          const available = balances.reduce((a, b) => a + b, 0n);
          if (amount > available) {
            expect(await failure(run(script, { store }))).toMatch(/^INSUFFICIENT_FUND/);
            return;
          }
          const { postings } = await run(script, { store });
          expect(postings.reduce((sum, p) => sum + p.amount, 0n)).toBe(amount);
          postings.forEach((p) => expect(p.amount).toBeLessThanOrEqual(balances[accounts.indexOf(p.source)]));
        },
      ),
      { numRuns: 200 },
    );
  });
});
