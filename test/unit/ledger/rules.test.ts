import { addressPatternRegex, assertAddress, assertAsset, assertLedgerName } from '../../../areas/ledger/rules/rules';

describe('ledger rules', () => {
  it.each([
    ['users:1', undefined],
    ['users:', '^users:[^:]+$'],
    ['users:...', '^users(:.+)?$'],
    [':1', '^[^:]+:1$'],
    ['a-b:', '^a\\-b:[^:]+$'],
  ])('address filter %s becomes %s', (pattern, regex) => {
    expect(addressPatternRegex(pattern)).toBe(regex);
  });

  it('matches patterns as Formance does', () => {
    const re = new RegExp(addressPatternRegex('users:')!);
    expect(re.test('users:1')).toBe(true);
    expect(re.test('users:1:sub')).toBe(false);
    const deep = new RegExp(addressPatternRegex('users:...')!);
    expect(deep.test('users:1:sub')).toBe(true);
    expect(deep.test('usersx')).toBe(false);
  });

  it.each(['world', 'users:1', 'a_b-c:D9'])('accepts address %s', (a) => expect(() => assertAddress(a, 'x')).not.toThrow());
  it.each(['', 'a:', ':a', 'a b', 'a::b', 'é'])('refuses address %p', (a) => expect(() => assertAddress(a, 'x')).toThrow(/invalid account address/));
  it.each(['USD', 'USD/2', 'EUR_CENT/2', 'BTC/8', 'A'])('accepts asset %s', (a) => expect(() => assertAsset(a, 'x')).not.toThrow());
  it.each(['usd', 'USD/', 'USD/1234567', '1USD', 'USD_/2'])('refuses asset %p', (a) => expect(() => assertAsset(a, 'x')).toThrow(/invalid asset/));
  it.each(['v2', '_info', 'a.b', 'x'.repeat(64)])('refuses ledger name %p', (n) => expect(() => assertLedgerName(n)).toThrow(/invalid ledger name/));
});
