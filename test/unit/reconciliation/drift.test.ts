import { computeDrift } from '../../../areas/reconciliation';

const BIG = 2n ** 64n;

describe('computeDrift', () => {
  it('is OK when the ledger side cancels the payments side, beyond 2^64', () => {
    expect(computeDrift({ 'USD/2': -(BIG + 1n) }, { 'USD/2': BIG + 1n })).toEqual({
      status: 'OK',
      error: '',
      ledgerBalances: { 'USD/2': -(BIG + 1n) },
      paymentsBalances: { 'USD/2': BIG + 1n },
      driftBalances: { 'USD/2': 0n },
    });
  });

  it('reports a drift as its absolute value, in either direction', () => {
    expect(computeDrift({ 'USD/2': -BIG }, { 'USD/2': BIG + 7n })).toMatchObject({
      status: 'NOT_OK',
      driftBalances: { 'USD/2': 7n },
      error: 'balance drift for asset USD/2',
    });
    expect(computeDrift({ 'USD/2': -(BIG + 7n) }, { 'USD/2': BIG })).toMatchObject({ status: 'NOT_OK', driftBalances: { 'USD/2': 7n } });
  });

  it('names an asset missing on either side, fills it with 0 and lists every reason in asset order', () => {
    expect(computeDrift({ 'USD/2': -5n, 'GBP/2': -3n }, { 'USD/2': 4n, 'EUR/2': BIG * 2n })).toEqual({
      status: 'NOT_OK',
      ledgerBalances: { 'EUR/2': 0n, 'GBP/2': -3n, 'USD/2': -5n },
      paymentsBalances: { 'EUR/2': BIG * 2n, 'GBP/2': 0n, 'USD/2': 4n },
      driftBalances: { 'EUR/2': BIG * 2n, 'GBP/2': 3n, 'USD/2': 1n },
      error: 'missing asset EUR/2 in ledgerBalances; missing asset GBP/2 in paymentsBalances; balance drift for asset USD/2',
    });
  });

  it('does not count a zero balance on one side and none on the other as a drift', () => {
    expect(computeDrift({ 'USD/2': 0n }, {})).toMatchObject({ status: 'OK', error: '', paymentsBalances: { 'USD/2': 0n } });
    expect(computeDrift({}, {})).toMatchObject({ status: 'OK', driftBalances: {} });
  });
});
