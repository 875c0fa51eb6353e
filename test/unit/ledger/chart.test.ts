import { bindVariables } from '../../../areas/ledger/reads/run-query';
import { defaultMetadata, findAccount, parseChart } from '../../../areas/ledger/rules/chart';
import { compileLedgerQuery, accountFields, ACCOUNT_FIELDS } from '../../../areas/ledger/reads/ledger-query';
import { assertFeatures, effectiveFeatures } from '../../../areas/ledger/features';
import { stringifyJson } from '../../../lib/json';

const chart = parseChart({
  world: {},
  bank: { '.self': {}, fees: {} },
  users: { $userID: { '.pattern': '^[0-9]+$', '.self': {}, '.metadata': { tier: { default: 'basic' }, note: {} }, main: {} } },
});

describe('chart of accounts', () => {
  test('an address is allowed when its segments walk to an account', () => {
    expect('account' in findAccount(chart, 'world')).toBe(true);
    expect('account' in findAccount(chart, 'bank')).toBe(true);
    expect('account' in findAccount(chart, 'bank:fees')).toBe(true);
    expect('account' in findAccount(chart, 'users:42')).toBe(true);
    expect('account' in findAccount(chart, 'users:42:main')).toBe(true);
  });

  test('a violation names the rule', () => {
    expect(findAccount(chart, 'users:abc')).toEqual({ violation: expect.stringContaining("does not match $userID's pattern ^[0-9]+$") });
    expect(findAccount(chart, 'shop')).toEqual({ violation: 'the root has no segment "shop"' });
    expect(findAccount(chart, 'users')).toEqual({ violation: expect.stringContaining('not an account of the chart') });
    expect(findAccount(chart, 'bank:other')).toEqual({ violation: '"bank" has no segment "other"' });
    expect(findAccount(chart, 'users:1:main:x')).toEqual({ violation: '"users:1:main" has no segment "x"' });
  });

  test('default metadata comes from .metadata keys that have a default', () => {
    const found = findAccount(chart, 'users:7');
    expect('account' in found && defaultMetadata(found.account)).toEqual({ tier: 'basic' });
  });

  test('a .pattern runs in linear time (RE2): a catastrophic JavaScript pattern answers at once', () => {
    const redos = parseChart({ users: { $id: { '.pattern': '^(a+)+$' } } });
    // V8's backtracking takes about 2^40 steps here; RE2 takes one pass over the 41 letters.
    expect(findAccount(redos, `users:${'a'.repeat(40)}!`)).toEqual({ violation: expect.stringContaining("does not match $id's pattern ^(a+)+$") });
    expect('account' in findAccount(redos, `users:${'a'.repeat(40)}`)).toBe(true);
  });

  test('a .pattern has Go (RE2) semantics: unanchored unless anchored, Perl classes and flags', () => {
    const go = parseChart({ a: { $x: { '.pattern': '[0-9]' } }, b: { $y: { '.pattern': '(?i)^abc$' } }, c: { $z: { '.pattern': '^\\pL+$' } } });
    expect('account' in findAccount(go, 'a:x1y')).toBe(true);
    expect('account' in findAccount(go, 'b:ABC')).toBe(true);
    expect('account' in findAccount(go, 'c:abc')).toBe(true);
    expect('violation' in findAccount(go, 'c:ab1')).toBe(true);
  });

  test.each([
    ['(?=x)', 'invalid or unsupported Perl syntax'],
    ['(a)\\1', 'invalid escape sequence'],
    ['(?<=a)b', 'invalid named capture'],
  ])('refuses %s, which RE2 cannot compile, naming the field', (pattern, reason) => {
    expect(() => parseChart({ users: { $id: { '.pattern': pattern } } })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION',
        message: expect.stringMatching(
          new RegExp(`^chart\\.users\\.\\$id\\.\\.pattern: invalid regular expression \\(.*${reason.replace(/[()]/g, '\\$&')}`),
        ),
      }),
    );
  });

  test.each([
    [{ $users: {} }, 'the root holds fixed segments only'],
    [{ '.self': {} }, 'the root holds fixed segments only'],
    [{ users: { '.pattern': 'x' } }, 'a fixed segment cannot have a .pattern'],
    [{ users: { $a: {}, $b: {} } }, 'at most one variable segment'],
    [{ users: { $a: { '.pattern': '(' } } }, 'invalid regular expression'],
    [{ users: { '.self': { x: 1 } } }, 'must be an empty object'],
    [{ users: { '.rules': { max: 1 } } }, 'Formance defines no account rule yet'],
    [{ users: { '.unknown': {} } }, 'unknown property'],
    [{ users: { $id: {}, '.metadata': { a: {} } } }, '.metadata and .rules need an account'],
    [{ users: { 'bad segment': {} } }, 'invalid segment name'],
    [{ users: { '.metadata': { a: { default: 1 } } } }, 'default: must be a string'],
    [[], 'chart: must be an object'],
  ])('refuses %j', (bad, message) => {
    expect(() => parseChart(bad)).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining(message) }));
  });
});

describe('ledger query filter', () => {
  const fields = accountFields('t.ledger', 't.address', 't.metadata');
  const compile = (query: unknown) => compileLedgerQuery(stringifyJson(query), fields, ACCOUNT_FIELDS);

  test('compiles to a bound SQL condition; no client text reaches the SQL', () => {
    const condition = compile({
      $and: [
        { $match: { address: 'users:' } },
        { $not: { $match: { "metadata[it's]": "x' OR 1=1" } } },
        { $gte: { 'balance[USD/2]': '340282366920938463463374607431768211455' } },
      ],
    })!;
    expect(condition.sql).not.toContain("it's");
    expect(condition.sql).not.toContain('OR 1=1');
    expect(condition.bindings).toEqual(['^users:[^:]+$', "it's", "x' OR 1=1", 'USD/2', '340282366920938463463374607431768211455']);
  });

  test('an empty $and holds for every row and an empty $or for none (fctl sends {"$and": []} when it has no filter)', () => {
    expect(compile({ $and: [] })).toEqual({ sql: '(TRUE)', bindings: [] });
    expect(compile({ $or: [] })).toEqual({ sql: '(FALSE)', bindings: [] });
  });

  test('{} and an absent query match everything', () => {
    expect(compile({})).toBeUndefined();
    expect(compileLedgerQuery(undefined, fields, ACCOUNT_FIELDS)).toBeUndefined();
  });

  test.each([
    [{ $match: { nope: 'x' } }, 'unknown field "nope"'],
    [{ $gt: { address: 'x' } }, '$gt applies to numbers and dates'],
    [{ $gte: { 'balance[USD]': 1.5 } }, 'takes an integer'],
    [{ $foo: { address: 'x' } }, 'unknown operator "$foo"'],
    [{ $and: {} }, '$and takes an array'],
    [{ $match: { address: 'a' }, $or: [] }, 'exactly one operator'],
  ])('refuses %j', (query, message) => {
    expect(() => compile(query)).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining(message) }));
  });

  test('refuses malformed JSON', () => {
    expect(() => compileLedgerQuery('{', fields, ACCOUNT_FIELDS)).toThrow(expect.objectContaining({ message: 'query: not valid JSON' }));
  });

  test('refuses $and/$not nested deeper than a request body may be, before compiling', () => {
    const deep = (levels: number) => '{"$not":'.repeat(levels) + '{"$match":{"address":"a"}}' + '}'.repeat(levels);
    expect(compileLedgerQuery(deep(60), fields, ACCOUNT_FIELDS)?.sql).toContain('NOT COALESCE');
    const nested = (levels: number) => '{"$and":['.repeat(levels) + '{"$match":{"address":"a"}}' + ']}'.repeat(levels);
    for (const text of [deep(5000), nested(5000)]) {
      expect(() => compileLedgerQuery(text, fields, ACCOUNT_FIELDS)).toThrow(
        expect.objectContaining({ code: 'VALIDATION', message: 'query: nesting deeper than 64 levels' }),
      );
    }
  });
});

describe('ledger features', () => {
  test('the effective set is what this platform does', () => {
    expect(effectiveFeatures()).toMatchObject({ HASH_LOGS: 'ASYNC', MOVES_HISTORY: 'ON', INDEX_ADDRESS_SEGMENTS: 'OFF' });
    expect(() => assertFeatures(effectiveFeatures())).not.toThrow();
  });

  test('HASH_LOGS may be chosen DISABLED, and then is DISABLED for that ledger only', () => {
    expect(() => assertFeatures({ HASH_LOGS: 'DISABLED' })).not.toThrow();
    expect(effectiveFeatures({ HASH_LOGS: 'DISABLED' }).HASH_LOGS).toBe('DISABLED');
    expect(effectiveFeatures({ HASH_LOGS: 'ASYNC' }).HASH_LOGS).toBe('ASYNC');
    expect(effectiveFeatures(null).HASH_LOGS).toBe('ASYNC');
  });

  test.each([
    [{ HASH_LOGS: 'SYNC' }, 'HASH_LOGS is ASYNC or DISABLED here'],
    [{ INDEX_ADDRESS_SEGMENTS: 'ON' }, 'INDEX_ADDRESS_SEGMENTS is OFF here'],
    [{ HASH_LOGS: 'MAYBE' }, 'must be one of SYNC, ASYNC, DISABLED'],
    [{ NOPE: 'ON' }, 'unknown feature'],
  ])('refuses %j', (features, message) => {
    expect(() => assertFeatures(features)).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining(message) }));
  });
});

describe('query template variables', () => {
  it('puts a whole-string placeholder as the value, interpolates the others, and names a missing or undeclared variable', () => {
    const vars = { account: { type: 'string' }, floor: { type: 'int', default: 50 } };
    expect(
      bindVariables(
        { $and: [{ $match: { address: '${account}' } }, { $gte: { balance: '${floor}' } }, { $match: { note: 'for ${account}' } }] },
        vars,
        { account: 'users:1' },
      ),
    ).toEqual({
      $and: [{ $match: { address: 'users:1' } }, { $gte: { balance: 50 } }, { $match: { note: 'for users:1' } }],
    });
    expect(() => bindVariables({ $match: { address: '${account}' } }, vars, {})).toThrow(/vars\.account: required/);
    expect(() => bindVariables({}, vars, { account: 'a', other: 'b' })).toThrow(/vars\.other: the template declares no such variable/);
  });
});
