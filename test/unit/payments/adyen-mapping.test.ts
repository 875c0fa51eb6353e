import { HttpClientException } from '@adyen/api-library';
import { adyenAsset, adyenItemKey, adyenMerchantAccount, adyenNotificationPayment } from '../../../activities/payments/plugins/adyen-mapping';
import { fetchKindsOf } from '../../../areas/payments/connectors/connector-catalog';
import { adyenFailure } from '../../../activities/payments/plugins/adyen';
import { registerBuiltInConnectorPlugins } from '../../../activities/payments/plugins';

// The catalog reads each provider's facts from its registered plugin, as the API and the worker register them at start.
registerBuiltInConnectorPlugins();

const item = (fields: Record<string, unknown>): any => ({
  amount: { currency: 'EUR', value: 1000 },
  eventDate: '2026-11-28T10:00:00+01:00',
  merchantAccountCode: 'ShopEU',
  merchantReference: 'order-1',
  pspReference: 'PSP1',
  paymentMethod: 'mc',
  success: 'true',
  ...fields,
});
const failureOf = (error: Error) => ({ type: (error as any).type, nonRetryable: (error as any).nonRetryable ?? false });

describe('Adyen mapping', () => {
  it("assets carry Adyen's minor units, which differ from ISO 4217 for CLP, ISK, CVE and IDR", () => {
    expect(['EUR', 'usd', 'JPY', 'KRW', 'IDR', 'CVE', 'CLP', 'ISK', 'KWD', 'BHD', 'TND'].map(adyenAsset)).toEqual([
      'EUR/2',
      'USD/2',
      'JPY/0',
      'KRW/0',
      'IDR/0',
      'CVE/0',
      'CLP/2',
      'ISK/2',
      'KWD/3',
      'BHD/3',
      'TND/3',
    ]);
    expect([adyenAsset(undefined), adyenAsset('EURO'), adyenAsset('E1')]).toEqual([undefined, undefined, undefined]);
  });

  it('a merchant account is INTERNAL, keyed by its id, dated at the epoch so a refetch changes nothing', () => {
    expect(adyenMerchantAccount({ id: 'ShopEU', name: 'Shop', status: 'Active', primarySettlementCurrency: 'EUR', companyId: 'Co' })).toMatchObject({
      reference: 'ShopEU',
      type: 'INTERNAL',
      name: 'Shop',
      defaultAsset: 'EUR/2',
      createdAt: new Date(0),
      metadata: { 'adyen/status': 'Active', 'adyen/companyID': 'Co' },
    });
  });

  it('each event code gives the type and status of Formance’s plugin; a modification is a state of its original payment', () => {
    const rows: Array<[Record<string, unknown>, unknown]> = [
      [
        { eventCode: 'AUTHORISATION' },
        { reference: 'PSP1', type: 'PAY-IN', status: 'AUTHORISATION', scheme: 'mastercard', destinationAccountReference: 'ShopEU' },
      ],
      [
        { eventCode: 'AUTHORISATION', success: 'false' },
        { reference: 'PSP1', status: 'FAILED' },
      ],
      [
        { eventCode: 'CAPTURE', pspReference: 'PSP2', originalReference: 'PSP1' },
        { reference: 'PSP1', status: 'CAPTURE' },
      ],
      [
        { eventCode: 'CAPTURE_FAILED', pspReference: 'PSP2', originalReference: 'PSP1' },
        { reference: 'PSP1', status: 'CAPTURE_FAILED' },
      ],
      [
        { eventCode: 'CANCELLATION', pspReference: 'PSP3', originalReference: 'PSP1' },
        { reference: 'PSP1', status: 'CANCELLED' },
      ],
      [
        { eventCode: 'REFUND', pspReference: 'PSP4', originalReference: 'PSP1' },
        { reference: 'PSP1', status: 'REFUNDED' },
      ],
      [
        { eventCode: 'REFUND_FAILED', pspReference: 'PSP4', originalReference: 'PSP1' },
        { reference: 'PSP1', status: 'REFUNDED_FAILURE' },
      ],
      [
        { eventCode: 'CHARGEBACK', pspReference: 'PSP5', originalReference: 'PSP1' },
        { reference: 'PSP1', status: 'DISPUTE_LOST' },
      ],
      [
        { eventCode: 'CHARGEBACK_REVERSED', pspReference: 'PSP6', originalReference: 'PSP1' },
        { reference: 'PSP1', status: 'DISPUTE_WON' },
      ],
      [{ eventCode: 'PAYOUT_THIRDPARTY' }, { type: 'PAYOUT', status: 'SUCCEEDED', sourceAccountReference: 'ShopEU' }],
      [
        { eventCode: 'PAYOUT_DECLINE', pspReference: 'PSP7', originalReference: 'PSP8' },
        { reference: 'PSP8', type: 'PAYOUT', status: 'FAILED' },
      ],
      [{ eventCode: 'PAYOUT_EXPIRE' }, { type: 'PAYOUT', status: 'EXPIRED' }],
    ];
    for (const [fields, expected] of rows) expect(adyenNotificationPayment(item(fields))).toMatchObject(expected as object);
    // A failed modification changes nothing; an event code that moves no money is ignored.
    expect(adyenNotificationPayment(item({ eventCode: 'REFUND', success: 'false', originalReference: 'PSP1' }))).toBeUndefined();
    expect(adyenNotificationPayment(item({ eventCode: 'REPORT_AVAILABLE' }))).toBeUndefined();
  });

  it('amounts are exact integers in minor units; an item without a usable amount or date is refused', () => {
    expect(adyenNotificationPayment(item({ eventCode: 'AUTHORISATION', amount: { currency: 'JPY', value: 1500 } }))).toMatchObject({
      amount: 1500n,
      asset: 'JPY/0',
    });
    expect(adyenNotificationPayment(item({ eventCode: 'AUTHORISATION', amount: { currency: 'USD', value: 9007199254740993n } }))!.amount).toBe(
      9007199254740993n,
    );
    expect(() => adyenNotificationPayment(item({ eventCode: 'AUTHORISATION', amount: { currency: 'EUR', value: 10.5 } }))).toThrow(/minor units/);
    expect(() => adyenNotificationPayment(item({ eventCode: 'AUTHORISATION', amount: { currency: 'EUR', value: -1 } }))).toThrow(/minor units/);
    expect(() => adyenNotificationPayment(item({ eventCode: 'AUTHORISATION', eventDate: 'yesterday' }))).toThrow(/eventDate/);
  });

  it('an item is applied once per event code, PSP reference and outcome', () => {
    expect(adyenItemKey(item({ eventCode: 'CAPTURE', pspReference: 'P9' }))).toBe('CAPTURE:P9:true');
    expect(adyenItemKey(item({ eventCode: 'CAPTURE', pspReference: 'P9', success: 'false' }))).not.toBe(
      adyenItemKey(item({ eventCode: 'CAPTURE', pspReference: 'P9' })),
    );
  });

  it('only the accounts are polled (payments come by notification)', () => {
    expect(fetchKindsOf('adyen')).toEqual(['accounts']);
  });

  it("Adyen's answers: 429 and 5xx are retried, other 4xx refused with Adyen's error", async () => {
    const lib = await import('@adyen/api-library');
    const answer = (statusCode: number) => new HttpClientException({ message: `HTTP Exception: ${statusCode}. 010, Forbidden`, statusCode });
    expect(failureOf(adyenFailure(answer(429), 'GET /merchants', lib))).toEqual({ type: 'PROVIDER_RATE_LIMITED', nonRetryable: false });
    expect(failureOf(adyenFailure(answer(503), 'GET /merchants', lib))).toEqual({ type: 'PROVIDER_UNAVAILABLE', nonRetryable: false });
    const refused = adyenFailure(answer(403), 'GET /v3/companies/{companyId}/merchants', lib);
    expect(failureOf(refused)).toEqual({ type: 'PROVIDER_REJECTED', nonRetryable: true });
    expect(refused.message).toBe('Adyen answered 403 to GET /v3/companies/{companyId}/merchants: 010, Forbidden');
  });
});
