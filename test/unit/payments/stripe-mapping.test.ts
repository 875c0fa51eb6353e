import Stripe from 'stripe';
import { stripeAmount, stripeAsset, stripeBalanceTransaction, stripeEventRows } from '../../../activities/payments/plugins/stripe-mapping';
import { stripeFailure } from '../../../activities/payments/plugins/stripe';

const failureOf = (error: Error) => ({ type: (error as any).type, nonRetryable: (error as any).nonRetryable ?? false, message: error.message });

describe('Stripe mapping', () => {
  it("assets carry Stripe's minor unit: two decimals by default, none for zero-decimal currencies, three for three-decimal ones", () => {
    expect(['usd', 'eur', 'jpy', 'krw', 'xof', 'kwd', 'bhd', 'tnd'].map(stripeAsset)).toEqual([
      'USD/2',
      'EUR/2',
      'JPY/0',
      'KRW/0',
      'XOF/0',
      'KWD/3',
      'BHD/3',
      'TND/3',
    ]);
  });

  it("an asset goes to Stripe as is only in Stripe's precision; another precision, a non-positive or unsafe amount is refused", () => {
    expect(stripeAmount('USD/2', 1999n)).toEqual({ currency: 'usd', amount: 1999 });
    expect(stripeAmount('JPY/0', 500n)).toEqual({ currency: 'jpy', amount: 500 });
    expect(stripeAmount('KWD/3', 1234n)).toEqual({ currency: 'kwd', amount: 1234 });
    expect(stripeAmount('JPY/2', 500n)).toBeUndefined();
    expect(stripeAmount('USD', 500n)).toBeUndefined();
    expect(stripeAmount('USD/2', 0n)).toBeUndefined();
    expect(stripeAmount('USD/2', 2n ** 53n)).toBeUndefined();
  });

  it('balance transactions: the source object is the payment; a payout and its failure are two states of one payment; fees are not payments', () => {
    const payout = {
      id: 'po_1',
      object: 'payout',
      amount: 5000,
      currency: 'eur',
      status: 'failed',
      created: 100,
      destination: 'ba_1',
      metadata: { k: 'v' },
    };
    const paid = stripeBalanceTransaction(
      { id: 'txn_1', type: 'payout', created: 100, amount: -5000, currency: 'eur', source: { ...payout, status: 'paid' } },
      'root',
    )!;
    const failure = stripeBalanceTransaction(
      { id: 'txn_2', type: 'payout_failure', created: 200, amount: 5000, currency: 'eur', source: payout },
      'root',
    )!;
    expect(paid).toMatchObject({
      reference: 'po_1',
      type: 'PAYOUT',
      status: 'SUCCEEDED',
      amount: 5000n,
      asset: 'EUR/2',
      sourceAccountReference: 'root',
      destinationAccountReference: 'ba_1',
    });
    expect(failure).toMatchObject({
      reference: 'po_1',
      status: 'FAILED',
      updatedAt: new Date(200_000),
      metadata: { k: 'v', 'stripe/balanceTransaction': 'txn_2' },
    });
    const refund = stripeBalanceTransaction(
      {
        id: 'txn_3',
        type: 'refund',
        created: 300,
        amount: -700,
        currency: 'jpy',
        source: { id: 're_1', object: 'refund', amount: 700, currency: 'jpy', status: 'succeeded', charge: 'ch_1', created: 300 },
      },
      'acct_1',
    )!;
    expect(refund).toMatchObject({
      reference: 're_1',
      type: 'PAY-IN',
      status: 'REFUNDED',
      amount: 700n,
      asset: 'JPY/0',
      metadata: { 'stripe/charge': 'ch_1' },
    });
    const reversal = stripeBalanceTransaction(
      {
        id: 'txn_4',
        type: 'transfer_refund',
        created: 400,
        amount: 300,
        currency: 'usd',
        source: { id: 'trr_1', object: 'transfer_reversal', amount: 300, currency: 'usd', transfer: 'tr_1', created: 400 },
      },
      'root',
    )!;
    expect(reversal).toMatchObject({ reference: 'trr_1', type: 'TRANSFER', status: 'REFUNDED', amount: 300n });
    const dispute = stripeBalanceTransaction(
      {
        id: 'txn_5',
        type: 'adjustment',
        created: 500,
        amount: -900,
        currency: 'usd',
        source: { id: 'du_1', object: 'dispute', amount: 900, currency: 'usd', status: 'lost', charge: 'ch_9', created: 500 },
      },
      'root',
    )!;
    expect(dispute).toMatchObject({ reference: 'du_1', type: 'PAY-IN', status: 'DISPUTE_LOST' });
    expect(
      stripeBalanceTransaction({ id: 'txn_6', type: 'stripe_fee', created: 1, amount: -30, currency: 'usd', source: null }, 'root'),
    ).toBeUndefined();
  });

  it('events: Connect events name their account; a transfer event carries its reversals; unknown types carry nothing', () => {
    const rows = stripeEventRows({
      type: 'transfer.reversed',
      created: 1000,
      account: undefined,
      data: {
        object: {
          id: 'tr_1',
          object: 'transfer',
          amount: 1000,
          currency: 'usd',
          destination: 'acct_9',
          created: 900,
          reversals: { data: [{ id: 'trr_1', object: 'transfer_reversal', amount: 400, currency: 'usd', transfer: 'tr_1', created: 950 }] },
        },
      },
    });
    expect(rows.payments.map((p) => [p.reference, p.status, p.amount, p.destinationAccountReference])).toEqual([
      ['tr_1', 'SUCCEEDED', 1000n, 'acct_9'],
      ['trr_1', 'REFUNDED', 400n, 'acct_9'],
    ]);
    const balance = stripeEventRows({
      type: 'balance.available',
      created: 1,
      account: 'acct_9',
      data: { object: { available: [{ amount: 12, currency: 'kwd' }] } },
    });
    expect(balance.balances).toEqual([{ accountReference: 'acct_9', asset: 'KWD/3', amount: 12n }]);
    expect(stripeEventRows({ type: 'customer.created', created: 1, data: { object: {} } })).toEqual({ accounts: [], balances: [], payments: [] });
  });
});

describe('Stripe errors as Temporal failures', () => {
  const error = (type: string, statusCode: number | undefined, code?: string) =>
    Stripe.errors.StripeError.generate({ type: type as any, message: 'msg', code, statusCode } as any) as Error;

  it('429, 5xx and network failures are retryable; other 4xx are definitive refusals; transient 409s are retried', () => {
    expect(failureOf(stripeFailure(Object.assign(error('invalid_request_error', 429, 'rate_limit'), {}), 'POST /v1/transfers'))).toMatchObject({
      type: 'PROVIDER_RATE_LIMITED',
      nonRetryable: false,
    });
    expect(failureOf(stripeFailure(error('api_error', 500), 'GET /v1/balance'))).toMatchObject({ type: 'PROVIDER_UNAVAILABLE', nonRetryable: false });
    expect(failureOf(stripeFailure(new Stripe.errors.StripeConnectionError({ message: 'down' } as any), 'GET /v1/balance'))).toMatchObject({
      nonRetryable: false,
    });
    expect(failureOf(stripeFailure(error('invalid_request_error', 409, 'lock_timeout'), 'POST /v1/payouts'))).toMatchObject({ nonRetryable: false });
    for (const [type, status] of [
      ['invalid_request_error', 400],
      ['card_error', 402],
      ['invalid_request_error', 404],
      ['idempotency_error', 409],
    ] as const) {
      expect(failureOf(stripeFailure(error(type, status), 'POST /v1/payouts'))).toMatchObject({ type: 'PROVIDER_REJECTED', nonRetryable: true });
    }
    expect(failureOf(stripeFailure(error('invalid_request_error', 401), 'GET /v1/account'))).toMatchObject({
      nonRetryable: true,
      message: expect.stringMatching(/^Stripe answered 401 .* to GET \/v1\/account: msg$/),
    });
  });
});
