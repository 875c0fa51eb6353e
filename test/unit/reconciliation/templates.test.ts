import { periodOf } from '../../../areas/reconciliation/rules/evaluate';
import { parseGoDuration } from '../../../areas/reconciliation/rules/durations';
import { explanationOf, outcomesOf, parseTemplate, sourcesOf } from '../../../areas/reconciliation/rules/templates';

describe('reconciliation rule templates', () => {
  it("scopes alerts by the cadence's UTC period (ISO weeks)", () => {
    expect(periodOf('continuous', new Date('2025-03-14T10:00:00Z'))).toBe('continuous');
    expect(periodOf('daily', new Date('2025-03-14T23:59:59Z'))).toBe('2025-03-14');
    expect(periodOf('monthly', new Date('2025-03-14T00:00:00Z'))).toBe('2025-03');
    expect(periodOf('weekly', new Date('2025-03-14T00:00:00Z'))).toBe('2025-W11');
    // 2021-01-03 is a Sunday of ISO week 53 of 2020; 2024-12-30 is in week 1 of 2025.
    expect(periodOf('weekly', new Date('2021-01-03T12:00:00Z'))).toBe('2020-W53');
    expect(periodOf('weekly', new Date('2024-12-30T12:00:00Z'))).toBe('2025-W01');
  });

  it('reads Go durations', () => {
    expect(parseGoDuration('30s')).toBe(30_000);
    expect(parseGoDuration('1m30s')).toBe(90_000);
    expect(parseGoDuration('1.5h')).toBe(5_400_000);
    expect(parseGoDuration('0')).toBe(0);
    expect(parseGoDuration('250ms')).toBe(250);
    for (const bad of ['', '30', 's', '1m 30s', '1d', 'abc']) expect(parseGoDuration(bad)).toBeUndefined();
  });

  it('compares exactly, counts an asset missing on one side as 0, and keys sources by label and index', () => {
    const template = parseTemplate('ledger_vs_pool_drift', { ledger: 'main', address: 'banks:', poolID: 'p1', tolerance: '5' });
    expect(sourcesOf(template).map((s) => s.key)).toEqual(['ledger:main#0', 'pool:p1#1']);
    const big = 2n ** 80n;
    const outcomes = outcomesOf(
      template,
      [
        {
          type: 'ledger',
          balances: [
            { account: 'banks:a', asset: 'USD/2', balance: big },
            { account: 'banks:b', asset: 'USD/2', balance: 5n },
            { account: 'banks:a', asset: 'EUR/2', balance: 1n },
          ],
        },
        {
          type: 'pool',
          balances: new Map([
            ['USD/2', big],
            ['JPY', 7n],
          ]),
        },
      ],
      explanationOf(template),
    );
    expect(outcomes).toEqual([
      { fingerprint: 'asset:EUR/2', passed: true, proof: { ledger: '1', pool: '0' } },
      { fingerprint: 'asset:JPY', passed: false, evidence: expect.objectContaining({ drift: '-7', missingOn: 'ledger' }) },
      { fingerprint: 'asset:USD/2', passed: true, proof: { ledger: (big + 5n).toString(), pool: big.toString() } },
    ]);
  });

  it('a condition that cannot run on a fingerprint makes the evaluation fail loudly, naming it', () => {
    const template = parseTemplate('ledger_invariant', { ledger: 'main', condition: 'event.positive + 1 > 0' });
    const read = { type: 'ledger' as const, balances: [{ account: 'a', asset: 'USD', balance: 2n ** 63n - 1n }] };
    expect(() => outcomesOf(template, [read], explanationOf(template))).toThrow(/condition on asset:USD/);
  });

  it('refuses specs naming the field', () => {
    expect(() => parseTemplate('account_threshold', { ledger: 'main', address: 'users:1', asset: 'USD', operator: 'below', threshold: 1 })).toThrow(
      /body\.templateSpec\.operator/,
    );
    expect(() => parseTemplate('account_threshold', { ledger: 'main', address: 'users:1', asset: 'USD', operator: 'lt', threshold: 1.5 })).toThrow(
      /body\.templateSpec\.threshold/,
    );
    expect(() => parseTemplate('source_parity', { left: { ledger: 'main' }, right: { poolID: 'p', ledger: 'x' } })).toThrow(
      /body\.templateSpec\.right\.ledger/,
    );
    expect(() => parseTemplate('ledger_vs_pool_drift', { ledger: 'main', poolID: 'p', tolerance: -1 })).toThrow(/body\.templateSpec\.tolerance/);
  });
});
