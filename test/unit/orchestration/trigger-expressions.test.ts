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
    const payload = { ledger: 'l', transactions: [{ id: 1, postings: [{ source: 'world', destination: 'users:ann', amount: 250, asset: 'USD/2' }], metadata: {} }], accountMetadata: {} };
    const filter = 'event.transactions[0].postings[0].destination.startsWith("users:") && event.transactions[0].postings[0].amount > 100';
    expect(checkExpression(filter, 'COMMITTED_TRANSACTIONS', 'filter')).toBeUndefined();
    expect(evaluateFilter(filter, payload)).toEqual({ match: true });
    expect(evaluateVariable('event.transactions[0].postings[0].amount / 10', payload)).toEqual({ value: '25' });
  });
});
