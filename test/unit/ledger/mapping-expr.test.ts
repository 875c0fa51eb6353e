import { accountMatcher, evalExpr, parseExpr } from '../../../areas/ledger/rules/mapping-expr';

const holds = (raw: unknown, balance: bigint, metadata: Record<string, string> = {}) => evalExpr(parseExpr(raw, 'expr'), { balance, metadata });

describe('ledger v1 mapping expressions', () => {
  it('compares $balance exactly, beyond 2^53', () => {
    const big = 2n ** 64n;
    expect(holds({ $gte: ['$balance', big] }, big)).toBe(true);
    expect(holds({ $gte: ['$balance', big] }, big - 1n)).toBe(false);
    expect(holds({ $gt: ['$balance', -5] }, -4n)).toBe(true);
    expect(holds({ $lt: [0, '$balance'] }, 0n)).toBe(false);
    expect(holds({ $lte: ['$balance', 0] }, 0n)).toBe(true);
    expect(holds({ $eq: ['$balance', 7] }, 7n)).toBe(true);
  });

  it('combines with $and and $or and reads account metadata with $meta', () => {
    const expr = { $or: [{ $eq: [{ $meta: 'overdraft' }, 'yes'] }, { $and: [{ $gte: ['$balance', 0] }, { $lte: ['$balance', 100] }] }] };
    expect(holds(expr, -10n, { overdraft: 'yes' })).toBe(true);
    expect(holds(expr, -10n)).toBe(false);
    expect(holds(expr, 50n)).toBe(true);
    expect(holds(expr, 101n, { overdraft: 'no' })).toBe(false);
    expect(holds({ $and: [] }, 0n)).toBe(true);
    expect(holds({ $or: [] }, 0n)).toBe(false);
  });

  it('treats {} (what the SDK sends) as always true', () => {
    expect(holds({}, -1000n)).toBe(true);
  });

  it.each([
    [[], 'expr: an expression is an object'],
    [{ $gte: ['$balance', 1], $lte: ['$balance', 2] }, 'expr: an expression has exactly one operator'],
    [{ $gte: '$balance' }, 'expr.$gte: expects an array'],
    [{ $eq: ['$balance'] }, 'expr.$eq: expects two values'],
    [{ $gt: ['x', 1] }, 'expr.$gt: orders integers only'],
    [{ $eq: ['$other', 1] }, 'expr.$eq[0]: unknown variable'],
    [{ $eq: [{ $meta: 1 }, 'a'] }, 'expr.$eq[0]: a value is'],
    [{ $and: [{ $not: [] }] }, 'expr.$and[0]: unknown operator'],
  ])('refuses %j naming where', (raw, message) => {
    expect(() => parseExpr(raw, 'expr')).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining(message) }));
  });

  it('matches account patterns anchored, with * as any characters and regex characters literal', () => {
    expect(accountMatcher('users:*')('users:1:main')).toBe(true);
    expect(accountMatcher('users:*')('a:users:1')).toBe(false);
    expect(accountMatcher('*:main')('users:1:main')).toBe(true);
    expect(accountMatcher('a.b')('axb')).toBe(false);
    expect(accountMatcher('a.b')('a.b')).toBe(true);
    expect(accountMatcher(undefined)('anything')).toBe(true);
    expect(accountMatcher('bank')('bank:1')).toBe(false);
  });

  it('matches * patterns without backtracking: many stars against a long address answer at once', () => {
    const many = `${'*a'.repeat(30)}*b`;
    // As ^.*a.*a…$ V8 would backtrack through about 1000^30 ways to place the stars.
    expect(accountMatcher(many)('a'.repeat(1000))).toBe(false);
    expect(accountMatcher(many)(`${'a'.repeat(1000)}b`)).toBe(true);
    expect(accountMatcher('a*a')('a')).toBe(false);
    expect(accountMatcher('a*a')('aa')).toBe(true);
    expect(accountMatcher('ab*bc')('abc')).toBe(false);
    expect(accountMatcher('u*:*:main')('users:1:main')).toBe(true);
    expect(accountMatcher('u*:*:main')('users:main')).toBe(false);
    expect(accountMatcher('**')('x')).toBe(true);
  });
});
