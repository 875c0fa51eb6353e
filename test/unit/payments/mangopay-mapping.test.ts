import {
  mangopayAsset,
  mangopayFunds,
  mangopayIdempotencyKey,
  mangopayPayment,
  mangopayWallet,
} from '../../../activities/payments/plugins/mangopay-mapping';
import { capabilitiesOf, fetchKindsOf, receivesCallbacks, requireCapability } from '../../../areas/payments/connectors/connector-catalog';
import { registerBuiltInConnectorPlugins } from '../../../activities/payments/plugins';

// The catalog reads each provider's facts from its registered plugin, as the API and the worker register them at start.
registerBuiltInConnectorPlugins();

const money = (Currency: string, Amount: number) => ({ Currency, Amount });
const transaction = (fields: Record<string, unknown>) => ({
  Id: '101',
  Tag: 'pi-1',
  CreationDate: 1_700_000_000,
  ExecutionDate: 1_700_000_060,
  DebitedFunds: money('EUR', 1234),
  CreditedFunds: money('EUR', 1234),
  Fees: money('EUR', 0),
  DebitedWalletId: 'w1',
  CreditedWalletId: 'w2',
  Nature: 'REGULAR',
  Status: 'SUCCEEDED',
  ResultCode: '000000',
  Type: 'TRANSFER',
  ...fields,
});

describe('Mangopay mapping', () => {
  it("maps Mangopay's currencies to Formance assets in their minor units and refuses other precisions", () => {
    expect(mangopayAsset('EUR')).toBe('EUR/2');
    expect(mangopayAsset('JPY')).toBe('JPY/0');
    expect(mangopayAsset('KWD')).toBeUndefined();
    expect(mangopayFunds('JPY/0', 500n)).toEqual({ Currency: 'JPY', Amount: 500 });
    expect(mangopayFunds('EUR/2', 1999n)).toEqual({ Currency: 'EUR', Amount: 1999 });
    expect(mangopayFunds('JPY/2', 500n)).toBeUndefined();
    expect(mangopayFunds('EUR/3', 500n)).toBeUndefined();
    expect(mangopayFunds('EUR/2', 0n)).toBeUndefined();
    expect(mangopayFunds('EUR/2', 2n ** 60n)).toBeUndefined();
  });

  it('maps transactions by type and status; a refund is a payment of its own; an unknown currency is skipped', () => {
    expect(mangopayPayment(transaction({}))).toMatchObject({
      reference: '101',
      type: 'TRANSFER',
      status: 'SUCCEEDED',
      asset: 'EUR/2',
      amount: 1234n,
      sourceAccountReference: 'w1',
      destinationAccountReference: 'w2',
      createdAt: new Date(1_700_000_000_000),
      updatedAt: new Date(1_700_000_060_000),
      metadata: { 'mangopay/tag': 'pi-1' },
    });
    expect(mangopayPayment(transaction({ Type: 'PAYIN', Status: 'CREATED', DebitedWalletId: '' }))).toMatchObject({
      type: 'PAY-IN',
      status: 'PENDING',
    });
    expect(
      mangopayPayment(transaction({ Type: 'PAYOUT', Status: 'FAILED', ResultCode: '121001', CreditedWalletId: '', BankAccountId: 'ba1' })),
    ).toMatchObject({
      type: 'PAYOUT',
      status: 'FAILED',
      destinationAccountReference: 'ba1',
      metadata: { 'mangopay/resultCode': '121001' },
    });
    expect(mangopayPayment(transaction({ Nature: 'REFUND', InitialTransactionId: '99', Status: 'FAILED' }))).toMatchObject({
      status: 'REFUNDED_FAILURE',
      metadata: { 'mangopay/initialTransactionID': '99' },
    });
    expect(mangopayPayment(transaction({ Type: 'CONVERSION' }))!.type).toBe('OTHER');
    expect(mangopayPayment(transaction({ DebitedFunds: money('XAF', 1) }))).toBeUndefined();
    expect(mangopayPayment(transaction({ DebitedFunds: money('EUR', 1.5) }))).toBeUndefined();
  });

  it("a wallet is an INTERNAL account carrying its owner as Formance's userID", () => {
    const wallet = {
      Id: 'w1',
      Tag: '',
      CreationDate: 1,
      Owners: ['u1'],
      Balance: money('JPY', 3),
      FundsType: 'DEFAULT',
      Description: 'Main',
      Currency: 'JPY',
    };
    expect(mangopayWallet(wallet, 'u1')).toMatchObject({
      reference: 'w1',
      type: 'INTERNAL',
      name: 'Main',
      defaultAsset: 'JPY/0',
      metadata: { userID: 'u1' },
    });
  });

  it('keeps an idempotency key Mangopay accepts and hashes any other into 36 hex digits, the same every time', () => {
    expect(mangopayIdempotencyKey('abcdef0123456789-1')).toBe('abcdef0123456789-1');
    const long = `${'x'.repeat(40)}-1`;
    expect(mangopayIdempotencyKey(long)).toMatch(/^[0-9a-f]{36}$/);
    expect(mangopayIdempotencyKey(long)).toBe(mangopayIdempotencyKey(long));
    expect(mangopayIdempotencyKey('short')).toMatch(/^[0-9a-f]{36}$/);
    expect(mangopayIdempotencyKey('a_b_c_d_e_f_g_h_i')).not.toBe('a_b_c_d_e_f_g_h_i');
  });

  it("has Formance's Mangopay capabilities, polls three kinds, no reversal, and receives unsigned callbacks", () => {
    expect(capabilitiesOf('mangopay')).toEqual(expect.arrayContaining(['FETCH_OTHERS', 'CREATE_WEBHOOKS', 'TRANSLATE_WEBHOOKS']));
    expect(fetchKindsOf('mangopay')).toEqual(['accounts', 'balances', 'payments']);
    expect(() => requireCapability({ id: 'm1', provider: 'mangopay' }, 'REVERSE_TRANSFER')).toThrow(
      'connector m1 (mangopay) does not have the capability REVERSE_TRANSFER',
    );
    expect(receivesCallbacks('mangopay')).toBe(true);
    expect(receivesCallbacks('stripe')).toBe(false);
  });
});
