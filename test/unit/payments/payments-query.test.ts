import { compilePaymentsQuery } from '../../../areas/payments/payments/payments-query';

describe('payments query filter nesting', () => {
  it('compiles $and/$not within 64 levels and refuses deeper ones before compiling', () => {
    const not = (levels: number) => '{"$not":'.repeat(levels) + '{"$match":{"status":"SUCCEEDED"}}' + '}'.repeat(levels);
    const and = (levels: number) => '{"$and":['.repeat(levels) + '{"$match":{"status":"SUCCEEDED"}}' + ']}'.repeat(levels);
    expect(compilePaymentsQuery(not(60))?.sql).toContain('NOT');
    for (const text of [not(5000), and(5000)]) {
      expect(() => compilePaymentsQuery(text)).toThrow(
        expect.objectContaining({ code: 'VALIDATION', message: 'query: nesting deeper than 64 levels' }),
      );
    }
  });
});
