import { jsonShape, membersSql } from '../../../db/json-shape';
import { stringifyJson } from '../../../lib/json';
import { v1TransactionView, v2TransactionView } from '../../../areas/ledger/reads/views';

interface Row {
  id: bigint;
  name?: string;
  tags: string[];
}
const shape = jsonShape<Row>()({
  id: { js: (r) => r.id, sql: 't.id::text' },
  name: { js: (r) => r.name, sql: 'to_json(t.name)::text', omitWhen: 't.name IS NULL' },
  tags: { js: (r) => r.tags, sql: 't.tags::text' },
});

describe('a JSON shape (db/json-shape.ts)', () => {
  test('its JS view has the members in order and leaves out an optional one that is undefined', () => {
    expect(stringifyJson(shape.view({ id: 1n, name: 'a', tags: [] }))).toBe('{"id":1,"name":"a","tags":[]}');
    const view = shape.view({ id: 2n, tags: ['x'] });
    expect(Object.keys(view)).toEqual(['id', 'tags']);
    expect(stringifyJson(view)).toBe('{"id":2,"tags":["x"]}');
  });

  test('its SQL writes the same members in the same order, literal pieces merged', () => {
    expect(shape.sql()).toBe(
      `'{"id":' || t.id::text || CASE WHEN t.name IS NULL THEN '' ELSE ',"name":' || to_json(t.name)::text END || ',"tags":' || t.tags::text || '}'`,
    );
  });

  test('a stored run of members is copied when present and written out when NULL', () => {
    const two = jsonShape<Row>()({
      id: { js: (r) => r.id, sql: 't.id::text' },
      tags: { js: (r) => r.tags, sql: 't.tags::text' },
      name: { js: (r) => r.name ?? '', sql: "to_json(coalesce(t.name, ''))::text" },
    });
    expect(two.sql({ stored: { members: ['id', 'tags'], sql: 't.head' } })).toBe(
      `'{' || coalesce(t.head, '"id":' || t.id::text || ',"tags":' || t.tags::text) || ',"name":' || to_json(coalesce(t.name, ''))::text || '}'`,
    );
    expect(() => shape.sql({ stored: { members: ['name', 'tags'], sql: 't.head' } })).toThrow('not consecutive required members');
    expect(() => two.sql({ stored: { members: ['id', 'name'], sql: 't.head' } })).toThrow('not consecutive required members');
  });

  test('member names are written as JSON and SQL literals, quotes escaped', () => {
    expect(membersSql([["it's", { sql: 'x' }]])).toBe(`'"it''s":' || x`);
  });

  test('a shape cannot start with an optional member (its text would start with a comma)', () => {
    expect(() => jsonShape<Row>()({ name: { js: (r) => r.name, sql: 'x', omitWhen: 'true' } })).toThrow('first member cannot be optional');
  });
});

describe('the transaction shapes', () => {
  const tx = {
    id: 7n,
    ledger: 'l',
    postings: [{ source: 'world', destination: 'a', amount: 10n ** 30n, asset: 'USD' }],
    metadata: { k: 'v' },
    timestamp: new Date('2024-01-01T00:00:00Z'),
    insertedAt: new Date('2024-01-01T00:00:01Z'),
    reverted: false,
    preCommitVolumes: {},
    postCommitVolumes: {},
  };

  test('v2 leaves out an unset reference and revertedAt; v1 writes reference "" and has exactly seven members', () => {
    expect(Object.keys(v2TransactionView(tx))).toEqual([
      'id',
      'timestamp',
      'postings',
      'metadata',
      'insertedAt',
      'reverted',
      'preCommitVolumes',
      'postCommitVolumes',
    ]);
    const reverted = v2TransactionView({ ...tx, reference: 'r', reverted: true, revertedAt: new Date('2024-01-02T00:00:00Z') });
    expect(reverted).toMatchObject({ reference: 'r', reverted: true, revertedAt: new Date('2024-01-02T00:00:00Z') });
    expect(stringifyJson(v1TransactionView(tx))).toBe(
      '{"txid":7,"timestamp":"2024-01-01T00:00:00.000Z","postings":[{"source":"world","destination":"a","amount":1000000000000000000000000000000,"asset":"USD"}],"reference":"","metadata":{"k":"v"},"preCommitVolumes":{},"postCommitVolumes":{}}',
    );
  });
});
