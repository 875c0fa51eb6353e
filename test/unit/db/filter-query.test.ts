import { compileQuery, metadataField, type QueryField, type QueryLanguage } from '../../../db/filter-query';
import { addressesField, addressField } from '../../../areas/ledger/reads/ledger-query';
import { compilePaymentsQuery } from '../../../areas/payments/payments/payments-query';

const FIELDS: Record<string, QueryField> = {
  id: { kind: 'number', sql: 't.id' },
  name: { kind: 'string', sql: 't.name' },
  provider: { kind: 'string', sql: 't.provider', caseInsensitive: true },
  at: { kind: 'date', sql: 't.at' },
  done: { kind: 'boolean', sql: '(t.done_at IS NOT NULL)' },
  address: addressField('t.address'),
  account: addressesField('t.accounts'),
  balance: { kind: 'number', sql: '', any: (op) => `EXISTS (SELECT 1 FROM v WHERE v.balance ${op} ?::numeric)` },
};
const resolve = (name: string) => (Object.hasOwn(FIELDS, name) ? FIELDS[name] : metadataField(name, 't.metadata'));
const ledgerLike: QueryLanguage = { resolve, fields: 'id, name, …', like: true, emptyConnectives: true, metadataExists: true };
const plain: QueryLanguage = { resolve, fields: 'id, name, …' };
const compile = (query: unknown, language = ledgerLike) => compileQuery(JSON.stringify(query), language);
const refusal = (message: string) => expect.objectContaining({ code: 'VALIDATION', message });

describe('the filter language compiler (db/filter-query.ts)', () => {
  test('comparisons bind their values; integers are compared as numeric, dates as dates', () => {
    expect(compile({ $gte: { id: '18446744073709551616' } })).toEqual({ sql: '(t.id >= ?::numeric)', bindings: ['18446744073709551616'] });
    expect(compile({ $lt: { at: '2024-01-01T00:00:00Z' } })).toEqual({ sql: '(t.at < ?)', bindings: [new Date('2024-01-01T00:00:00Z')] });
    expect(compile({ $match: { done: true } })).toEqual({ sql: '((t.done_at IS NOT NULL) = ?)', bindings: [true] });
    expect(compile({ $in: { id: [1, '2'] } })).toEqual({ sql: '(t.id IN (?::numeric, ?::numeric))', bindings: ['1', '2'] });
  });

  test('$and, $or and $not nest; a NULL under $not is false', () => {
    expect(compile({ $and: [{ $match: { name: 'a' } }, { $or: [{ $not: { $match: { name: 'b' } } }, { $exists: { name: false } }] }] })).toEqual({
      sql: '((t.name = ?) AND ((NOT COALESCE((t.name = ?), false)) OR (t.name IS NULL)))',
      bindings: ['a', 'b'],
    });
  });

  test('metadata keys and values are bound, never written into the SQL', () => {
    const condition = compile({ $match: { "metadata[it's?]": "x' OR 1=1" } })!;
    expect(condition).toEqual({ sql: '((t.metadata ->> ?) = ?)', bindings: ["it's?", "x' OR 1=1"] });
  });

  test('a case-insensitive field compares lower-cased', () => {
    expect(compile({ $match: { provider: 'StRiPe' } })).toEqual({ sql: '(lower(t.provider) = ?)', bindings: ['stripe'] });
    expect(compile({ $in: { provider: ['A', 'b'] } })).toEqual({ sql: '(lower(t.provider) IN (?, ?))', bindings: ['a', 'b'] });
  });

  test('addresses match as patterns, one address or any of a set', () => {
    expect(compile({ $match: { address: 'users:' } })).toEqual({ sql: '(t.address ~ ?)', bindings: ['^users:[^:]+$'] });
    expect(compile({ $match: { address: 'world' } })).toEqual({ sql: '(t.address = ?)', bindings: ['world'] });
    expect(compile({ $match: { account: 'world' } })).toEqual({ sql: '(t.accounts @> ARRAY[?]::text[])', bindings: ['world'] });
    expect(compile({ $match: { account: 'users:...' } })?.sql).toBe('(EXISTS (SELECT 1 FROM unnest(t.accounts) a WHERE a ~ ?))');
  });

  test('a set-valued field holds when one of its values does', () => {
    expect(compile({ $gt: { balance: 0 } })).toEqual({ sql: '(EXISTS (SELECT 1 FROM v WHERE v.balance > ?::numeric))', bindings: ['0'] });
    expect(compile({ $match: { balance: 5 } })?.sql).toContain('v.balance = ?');
  });

  test('the options: $like, empty $and/$or and {"$exists": {"metadata": key}}', () => {
    expect(compile({ $like: { name: 'a%' } })).toEqual({ sql: '(t.name LIKE ?)', bindings: ['a%'] });
    expect(compile({ $and: [] })).toEqual({ sql: '(TRUE)', bindings: [] });
    expect(compile({ $or: [] })).toEqual({ sql: '(FALSE)', bindings: [] });
    expect(compile({ $exists: { metadata: 'k' } })).toEqual({ sql: '((t.metadata ->> ?) IS NOT NULL)', bindings: ['k'] });
    expect(() => compile({ $like: { name: 'a%' } }, plain)).toThrow(
      refusal('query: unknown operator "$like"; operators are $match, $lt, $lte, $gt, $gte, $exists, $in, $and, $or, $not'),
    );
    expect(() => compile({ $and: [] }, plain)).toThrow(refusal('query: $and takes a non-empty array'));
    expect(() => compile({ $exists: { metadata: 'k' } }, plain)).toThrow(refusal('query: unknown field "metadata"; fields are id, name, …'));
  });

  test('{}, "" and no query match everything', () => {
    expect(compileQuery('{}', plain)).toBeUndefined();
    expect(compileQuery('', plain)).toBeUndefined();
    expect(compileQuery(undefined, plain)).toBeUndefined();
  });

  test.each([
    [{ $match: { nope: 'x' } }, 'query: unknown field "nope"; fields are id, name, …'],
    [{ $gt: { name: 'x' } }, 'query: $gt applies to numbers and dates, not "name"'],
    [{ $gte: { id: 1.5 } }, 'query: field "id" takes an integer'],
    [{ $lt: { at: 'yesterday' } }, 'query: field "at" takes an ISO 8601 date-time'],
    [{ $match: { done: 'yes' } }, 'query: field "done" takes true or false'],
    [{ $match: { name: 1 } }, 'query: field "name" takes a string'],
    [{ $match: { address: 1 } }, 'query: field "address" takes a string'],
    [{ $like: { id: '1%' } }, 'query: $like applies to text fields, not "id"'],
    [{ $like: { account: 'a%' } }, 'query: $like applies to text fields, not "account"'],
    [{ $in: { account: ['a'] } }, 'query: $in does not apply to "account"; use $or of $match'],
    [{ $in: { balance: [1] } }, 'query: $in does not apply to "balance"'],
    [{ $in: { name: [] } }, 'query: $in takes a non-empty array of values'],
    [{ $exists: { name: 'yes' } }, 'query: $exists takes true or false'],
    [{ $exists: { balance: true } }, 'query: $exists does not apply to "balance"'],
    [{ $foo: { name: 'x' } }, 'query: unknown operator "$foo"; operators are $match, $like, $lt, $lte, $gt, $gte, $exists, $in, $and, $or, $not'],
    [{ $and: {} }, 'query: $and takes an array'],
    [{ $match: { name: 'a', id: 1 } }, 'query: $match takes an object with exactly one field'],
    [{ $match: { name: 'a' }, $or: [] }, 'query: each expression is an object with exactly one operator'],
    [[], 'query: each expression is an object with exactly one operator'],
  ])('refuses %j, naming the field or operator', (query, message) => {
    expect(() => compile(query)).toThrow(refusal(message));
  });

  test('refuses malformed JSON, and nesting deeper than 64 levels before compiling', () => {
    expect(() => compileQuery('{', plain)).toThrow(refusal('query: not valid JSON'));
    const not = (levels: number) => '{"$not":'.repeat(levels) + '{"$match":{"name":"a"}}' + '}'.repeat(levels);
    const and = (levels: number) => '{"$and":['.repeat(levels) + '{"$match":{"name":"a"}}' + ']}'.repeat(levels);
    expect(compileQuery(not(60), plain)?.sql).toContain('NOT COALESCE');
    expect(compileQuery(and(30), plain)?.bindings).toEqual(['a']);
    for (const text of [not(65), and(65), not(5000)])
      expect(() => compileQuery(text, plain)).toThrow(refusal('query: nesting deeper than 64 levels'));
  });
});

describe('the payments dialect', () => {
  test('resolves aliases and metadata, and refuses an empty text as before', () => {
    expect(compilePaymentsQuery('{"$match":{"connector_id":"c"}}')).toEqual({ sql: '(p.connector_id = ?)', bindings: ['c'] });
    expect(compilePaymentsQuery('{"$match":{"metadata[k]":"v"}}')).toEqual({ sql: '((p.metadata ->> ?) = ?)', bindings: ['k', 'v'] });
    expect(() => compilePaymentsQuery('')).toThrow(refusal('query: not valid JSON'));
    expect(() => compilePaymentsQuery('{"$match":{"toString":"x"}}')).toThrow(
      refusal(expect.stringContaining('query: unknown field "toString"') as any),
    );
  });
});
