import fc from 'fast-check';
import { canonicalJson, parseJson, stringifyJson } from '../../lib/json';

describe('exact-integer JSON', () => {
  it('round-trips integers beyond 2^53 without losing a digit', () => {
    const text = '{"amount":340282366920938463463374607431768211455,"small":12,"ratio":0.5}';
    const parsed = parseJson(text) as { amount: bigint; small: number; ratio: number };
    expect(parsed.amount).toBe(340282366920938463463374607431768211455n);
    expect(parsed.small).toBe(12);
    expect(stringifyJson(parsed)).toBe(text);
  });

  it('does not unquote a string that looks like the internal marker', () => {
    const value = { note: '~big0123~42', n: 10n ** 30n };
    expect(stringifyJson(value)).toBe('{"note":"~big0123~42","n":1000000000000000000000000000000}');
  });
});

describe('JSON depth limit', () => {
  it('refuses documents nested deeper than the limit, brackets inside strings aside', () => {
    expect(() => parseJson('['.repeat(65) + ']'.repeat(65), { maxDepth: 64 })).toThrow(/nesting deeper than 64/);
    expect(parseJson(`{"s":"${'['.repeat(100)}"}`, { maxDepth: 2 })).toEqual({ s: '['.repeat(100) });
  });
});

describe('parseJson for request bodies (integersOnly)', () => {
  it.each(['1e3', '1E3', '1.0', '-0.0', '1e30', '12.5e-1'])('refuses %s: a number with a fraction or an exponent could round an amount', (number) => {
    expect(() => parseJson(`{"amount":${number}}`, { integersOnly: true })).toThrow(/not an integer written with digits only/);
  });

  it('keeps integers exact and leaves digits inside strings, true, false and null alone', () => {
    expect(parseJson('{"a":-12,"b":"1.5e3","c":true,"d":false,"e":null,"f":[0,-0]}', { integersOnly: true })).toEqual({
      a: -12,
      b: '1.5e3',
      c: true,
      d: false,
      e: null,
      f: [0, -0],
    });
    expect(parseJson('{"a":340282366920938463463374607431768211457}', { integersOnly: true })).toEqual({
      a: 340282366920938463463374607431768211457n,
    });
  });

  it('still checks the depth of a document whose float comes first', () => {
    expect(() => parseJson(`[1.5,${'['.repeat(70)}${']'.repeat(70)}]`, { maxDepth: 64 })).toThrow(/nesting deeper than 64/);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every level, integer-like keys included, whatever the insertion order', () => {
    expect(canonicalJson({ b: 1, a: { z: [1, { y: 2, x: 1 }], '10': 'x', '2': 'y' } })).toBe('{"a":{"10":"x","2":"y","z":[1,{"x":1,"y":2}]},"b":1}');
  });

  it('writes an integer the same whether it was read as a number or a BigInt, and big ones digit for digit', () => {
    expect(canonicalJson({ amount: 5n })).toBe(canonicalJson({ amount: 5 }));
    expect(canonicalJson([340282366920938463463374607431768211455n])).toBe('[340282366920938463463374607431768211455]');
  });

  it('writes dates as ISO 8601 and drops undefined members', () => {
    expect(canonicalJson({ date: new Date('2024-01-02T03:04:05.678Z'), gone: undefined })).toBe('{"date":"2024-01-02T03:04:05.678Z"}');
  });

  it('writes what its first definition wrote, for any JSON value with dates and big integers: the log chain depends on every byte', () => {
    // The definition the stored log hashes were made with, kept here as the reference.
    const reference = (value: unknown): string => {
      if (value === null) return 'null';
      if (typeof value === 'bigint') return value.toString();
      if (value instanceof Date) return JSON.stringify(value.toISOString());
      if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : reference(v))).join(',')}]`;
      if (typeof value === 'object') {
        const record = value as Record<string, unknown>;
        const keys = Object.keys(record)
          .filter((k) => record[k] !== undefined)
          .sort();
        return `{${keys.map((k) => `${JSON.stringify(k)}:${reference(record[k])}`).join(',')}}`;
      }
      return JSON.stringify(value);
    };
    const leaf = fc.oneof(fc.jsonValue(), fc.bigInt(), fc.date({ noInvalidDate: true }), fc.constant(undefined));
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node')), fc.dictionary(fc.string(), tie('node'))),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(reference(v));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('stringifyJson', () => {
  it('never touches BigInt.prototype, even when a serialized value serializes another one inside its own toJSON', () => {
    const nested = { toJSON: () => ({ inner: stringifyJson({ n: 2n ** 70n }) }), after: 2n ** 64n };
    expect(stringifyJson({ nested, last: -5n })).toBe('{"nested":{"inner":"{\\"n\\":1180591620717411303424}"},"last":-5}');
    expect('toJSON' in BigInt.prototype).toBe(false);
    expect(() => JSON.stringify({ n: 1n })).toThrow(TypeError);
  });

  it('throws a TypeError on a cyclic value, as JSON.stringify does', () => {
    const cyclic: Record<string, unknown> = { n: 1n };
    cyclic.self = cyclic;
    expect(() => stringifyJson(cyclic)).toThrow(TypeError);
    expect(() => stringifyJson(cyclic, 2)).toThrow(TypeError);
  });

  it('writes what JSON.stringify writes for every value without BigInts', () => {
    const odd = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 });
    const samples: unknown[] = [
      null,
      true,
      false,
      0,
      -0,
      1.5,
      -1e21,
      1e-7,
      NaN,
      Infinity,
      -Infinity,
      '',
      'plain',
      'quote " backslash \\ newline \n tab \t',
      'control \u0001 \u001f',
      'unicode é € 😀',
      'lone \ud800 surrogate \udc00',
      new Date(Date.UTC(2026, 10, 24, 2, 30, 0, 123)),
      [],
      {},
      [1, 'a', null, undefined, () => 1, Symbol('s'), [[]], {}],
      { a: undefined, b: () => 1, c: Symbol('c'), d: null, e: [undefined] },
      { '': 'empty key', 'key "quoted"': 1, ünï: { deep: { deeper: [1, { x: 'y' }] } } },
      { 2: 'b', 1: 'a', z: 0, y: 1 },
      { toJSON: () => ({ replaced: true }) },
      { when: new Date(0), inner: { toJSON: () => 'text' } },
      Buffer.from('hi'),
      odd,
      new Map([[1, 2]]),
      new Set([1]),
      undefined,
      () => 1,
      { gone: { toJSON: () => undefined }, kept: 1 },
      [{ toJSON: () => undefined }, { toJSON: () => Symbol('s') }],
      { keyed: { toJSON: (key: string) => `key:${key}` }, list: [{ toJSON: (key: string) => `index:${key}` }] },
      [new String('ab'), new Number(1.5), new Boolean(false)],
      { boxed: new String('x') },
    ];
    for (const sample of samples) expect(stringifyJson(sample)).toBe(JSON.stringify(sample));
  });

  it('writes BigInts digit for digit wherever they are, and keeps indentation when asked', () => {
    expect(stringifyJson([2n ** 64n, { a: -(2n ** 70n), b: [0n] }])).toBe('[18446744073709551616,{"a":-1180591620717411303424,"b":[0]}]');
    expect(stringifyJson({ a: 2n ** 64n, b: 'x' }, 2)).toBe('{\n  "a": 18446744073709551616,\n  "b": "x"\n}');
  });
});
