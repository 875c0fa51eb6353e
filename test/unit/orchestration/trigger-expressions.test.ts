import { checkExpression, evaluateFilter, evaluateVariable } from '../../../areas/orchestration/expressions';

describe('trigger expression checks', () => {
  it.each([
    ['an unknown variable', 'nosuchvar.x == 1', 'SAVED_PAYMENT', 'filter', 'Unknown variable: nosuchvar (the one variable is event, the payload)'],
    ['an unknown function', 'eval("1")', 'SAVED_PAYMENT', 'variable', "found no matching overload for 'eval(string)'"],
    ['an unknown method', 'event.status.shout()', 'SAVED_PAYMENT', 'variable', "found no matching overload for 'string.shout()'"],
    ['a field the payload lacks', 'event.nosuchfield', 'SAVED_PAYMENT', 'variable', 'No such key: nosuchfield (not in a SAVED_PAYMENT payload)'],
    ['a nested field the payload lacks', 'event.transactions[0].postings[0].account', 'COMMITTED_TRANSACTIONS', 'variable', 'No such key: account'],
    ['a field of a list element in a macro', 'event.transactions.exists(t, t.nope == 1)', 'COMMITTED_TRANSACTIONS', 'filter', 'No such key: nope'],
    ['a type mismatch', 'event.amount == "100"', 'SAVED_PAYMENT', 'filter', 'no such overload: int == string'],
    ['a filter of a known other type', '1 + 1', 'ANY_TYPE', 'filter', 'the filter gives int, not a bool'],
    ['a filter that is a string field', 'event.ledger', 'COMMITTED_TRANSACTIONS', 'filter', 'the filter gives string, not a bool'],
    ['a syntax error', 'event.amount >', 'SAVED_PAYMENT', 'filter', ''],
  ] as const)('refuses %s', (_name, source, eventType, kind, reason) => {
    expect(checkExpression(source, eventType, kind)).toContain(reason);
  });

  it.each([
    ['SAVED_PAYMENT', 'filter', 'event.status == "SUCCEEDED" && event.amount > 100'],
    ['SAVED_PAYMENT', 'filter', 'event.rawData.anything.at.all == 1'],
    ['SAVED_PAYMENT', 'filter', 'event.metadata.k == "v"'],
    ['SAVED_PAYMENT', 'variable', 'event.amount'],
    ['COMMITTED_TRANSACTIONS', 'variable', 'event.transactions[0].postings[0].destination.split(":")[1]'],
    ['COMMITTED_TRANSACTIONS', 'variable', 'event.transactions[0].postCommitVolumes["users:1"]["USD/2"].balance / 10'],
    ['COMMITTED_TRANSACTIONS', 'filter', 'event.transactions.exists(t, has(t.reference)) && event.accountMetadata["a"].kind == "shop"'],
    ['SAVED_METADATA', 'filter', 'event.targetId == 3 || event.targetId == "users:1"'],
    ['SAVED_POOL', 'filter', 'event.accountIDs.size() > 1'],
    ['AN_EVENT_TYPE_THE_PLATFORM_DOES_NOT_EMIT', 'filter', 'event.whatever.it.holds == 1'],
  ] as const)('accepts on %s the %s %s', (eventType, kind, source) => {
    expect(checkExpression(source, eventType, kind)).toBeUndefined();
  });

  it('evaluates what it accepts against a payload of that type', () => {
    const payload = {
      ledger: 'l',
      transactions: [{ id: 1, postings: [{ source: 'world', destination: 'users:ann', amount: 250, asset: 'USD/2' }], metadata: {} }],
      accountMetadata: {},
    };
    const filter = 'event.transactions[0].postings[0].destination.startsWith("users:") && event.transactions[0].postings[0].amount > 100';
    expect(checkExpression(filter, 'COMMITTED_TRANSACTIONS', 'filter')).toBeUndefined();
    expect(evaluateFilter(filter, payload)).toEqual({ match: true });
    expect(evaluateVariable('event.transactions[0].postings[0].amount / 10', payload)).toEqual({ value: '25' });
  });
});

describe('trigger expressions cannot hold the process', () => {
  const nested = (depth: number, list = '[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]', body = 'x0 == x0') => {
    let source = body;
    for (let i = 0; i < depth; i++) source = `${list}.all(x${i}, ${source})`;
    return source;
  };

  it('matches runs on RE2: a catastrophic backtracking pattern answers at once, in both forms', () => {
    const s = 'a'.repeat(40);
    // V8 would take about 2^40 steps on each of these; RE2 one pass.
    expect(evaluateFilter('event.s.matches("^(a+)+$")', { s: `${s}!` })).toEqual({ match: false });
    expect(evaluateFilter('matches(event.s, "^(a+)+$")', { s: `${s}!` })).toEqual({ match: false });
    expect(evaluateFilter('event.s.matches("^(a+)+$")', { s })).toEqual({ match: true });
    expect(evaluateVariable('event.s.matches(event.p)', { s: `${s}!`, p: '^(a+)+$' })).toEqual({ value: 'false' });
  });

  it('matches has RE2 (Go) semantics: unanchored unless anchored, (?i), Unicode classes', () => {
    expect(evaluateFilter('event.s.matches("[0-9]") && event.s.matches("(?i)^X") && event.u.matches("^\\\\pL+$")', { s: 'x1y', u: 'été' })).toEqual({
      match: true,
    });
    expect(evaluateFilter('event.s.matches("^[0-9]+$")', { s: 'x1y' })).toEqual({ match: false });
  });

  it.each([
    ['!event.s.matches("b") || false', true],
    ['-1 < 0 && "ab".matches("b$")', true],
    ['(event.s + "b").matches("^ab$")', true],
    ['event.m["k"].matches("^v") == true', true],
    ['event.l.map(x, x.matches("1")) == [true, false]', true],
    ['[event.s].exists(x, x.matches("a")) ? "y".matches("z") : true', false],
    ['cel.bind(p, "^a", event.s.matches(p))', true],
    ['event.l.filter(x, x.matches("2")).size() == 1 && has(event.m.k)', true],
  ])('keeps the meaning of %s written with matches on RE2', (source, expected) => {
    expect(checkExpression(source, 'ANY', 'filter')).toBeUndefined();
    expect(evaluateFilter(source, { s: 'a', m: { k: 'v' }, l: ['1', '2'] })).toEqual({ match: expected });
  });

  it.each([
    ['a lookahead', 'event.ledger.matches("(?=x)")', 'invalid or unsupported Perl syntax'],
    ['a backreference', 'matches(event.ledger, "(a)\\\\1")', 'invalid escape sequence'],
    ['a lookbehind', 'event.ledger.matches("(?<=a)b")', 'invalid named capture'],
  ])('refuses at creation a pattern RE2 cannot compile: %s', (_name, source, reason) => {
    expect(checkExpression(source, 'COMMITTED_TRANSACTIONS', 'filter')).toMatch(new RegExp(`^matches: invalid regular expression .*${reason}`));
  });

  it('refuses at creation what costs over the limit on any event: eight nested .all() over 10-element lists', () => {
    expect(checkExpression(nested(8), 'ANY', 'filter')).toMatch(
      /^estimated evaluation cost \d+ on an event whose lists, maps and strings hold 16 elements is over the limit of 1000000/,
    );
    expect(checkExpression(nested(8, 'event.transactions', 'x0.id >= 0'), 'COMMITTED_TRANSACTIONS', 'filter')).toContain('over the limit of 1000000');
    expect(checkExpression(`event.ledger.size() > 0 ? true : ${nested(8)}`, 'COMMITTED_TRANSACTIONS', 'filter')).toContain('over the limit');
    expect(checkExpression(nested(3), 'ANY', 'filter')).toBeUndefined();
    expect(checkExpression(nested(2, 'event.transactions', 'x0.id >= 0'), 'COMMITTED_TRANSACTIONS', 'filter')).toBeUndefined();
  });

  it('does not run, on an event too large for it, an expression accepted at creation', () => {
    const source = nested(3, 'event.items');
    expect(checkExpression(source, 'ANY', 'filter')).toBeUndefined();
    expect(evaluateFilter(source, { items: [1, 2, 3] })).toEqual({ match: true });
    const large = { items: Array.from({ length: 1000 }, (_, i) => i + 1) };
    const started = Date.now();
    expect(evaluateFilter(source, large)).toEqual({
      match: false,
      overLimit: true,
      error: expect.stringMatching(/^estimated evaluation cost \d+ on this event is over the limit of 1000000/),
    });
    expect(evaluateVariable(`${source} ? "y" : "n"`, large)).toEqual({ overLimit: true, error: expect.stringContaining('over the limit') });
    // Refused before evaluating: 10^9 iterations would take minutes.
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('sizes what an index reads: a map value picked by a key from the event, a list element picked by a computed index', () => {
    const lists = { m: { a: Array.from({ length: 1000 }, (_, i) => i + 1) }, k: 'a', n: 0, l: [Array.from({ length: 1000 }, (_, i) => i + 1)] };
    expect(evaluateFilter(nested(3, 'event.m[event.k]'), lists)).toMatchObject({ match: false, overLimit: true });
    expect(evaluateFilter(nested(3, 'event.l[event.n]'), lists)).toMatchObject({ match: false, overLimit: true });
    expect(evaluateFilter(nested(3, 'event.l[0]'), lists)).toMatchObject({ match: false, overLimit: true });
    expect(evaluateFilter(nested(1, 'event.m[event.k]'), lists)).toEqual({ match: true });
    expect(evaluateFilter(nested(1, 'event.l[event.n]'), lists)).toEqual({ match: true });
  });
});
