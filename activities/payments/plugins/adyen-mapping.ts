import type { Types } from '@adyen/api-library';
import type { ProviderAccount, ProviderPayment } from '../../../areas/payments';

type Merchant = Types.management.Merchant;
type NotificationRequestItem = Types.notification.NotificationRequestItem;

/**
 * Adyen's minor units (docs.adyen.com/development-resources/currency-codes), which differ from ISO 4217 for a few
 * currencies (CLP and ISK have 2 decimals at Adyen, CVE and IDR none): Adyen's `value` is an integer in these units,
 * so the asset says Adyen's precision and the amount is stored unchanged. Every other currency has 2.
 */
const ZERO_DECIMALS = new Set(['CVE', 'DJF', 'GNF', 'IDR', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF']);
const THREE_DECIMALS = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);

/** `EUR` → `EUR/2`, `JPY` → `JPY/0`, `KWD` → `KWD/3`; undefined for what is not a currency code. */
export function adyenAsset(currency: string | undefined): string | undefined {
  if (typeof currency !== 'string' || !/^[A-Za-z]{3}$/.test(currency)) return undefined;
  const code = currency.toUpperCase();
  return `${code}/${ZERO_DECIMALS.has(code) ? 0 : THREE_DECIMALS.has(code) ? 3 : 2}`;
}

/**
 * A merchant account of the company (Management API), INTERNAL, its id as reference (as Formance). Adyen gives no
 * creation date: the epoch stands for "unknown", so a refetch writes nothing (a fetch time would change at each run).
 */
export function adyenMerchantAccount(merchant: Merchant): ProviderAccount {
  return {
    reference: merchant.id!,
    type: 'INTERNAL',
    ...(merchant.name ? { name: merchant.name } : {}),
    ...(adyenAsset(merchant.primarySettlementCurrency) ? { defaultAsset: adyenAsset(merchant.primarySettlementCurrency) } : {}),
    createdAt: new Date(0),
    metadata: {
      ...(merchant.status ? { 'adyen/status': merchant.status } : {}),
      ...(merchant.companyId ? { 'adyen/companyID': merchant.companyId } : {}),
    },
    raw: merchant,
  };
}

/** Card brands as Adyen names its payment methods (`visa`, `mc`, `amex_applepay`, …) to the platform's schemes. */
const SCHEMES: Array<[string, string]> = [
  ['visa', 'visa'],
  ['electron', 'visa'],
  ['mc', 'mastercard'],
  ['amex', 'amex'],
  ['alipay', 'alipay'],
  ['cup', 'cup'],
  ['discover', 'discover'],
  ['doku', 'doku'],
  ['dragonpay', 'dragonpay'],
  ['jcb', 'jcb'],
  ['maestro', 'maestro'],
  ['molpay', 'molpay'],
  ['diners', 'diners'],
];
export function adyenScheme(paymentMethod: string | undefined): string {
  const method = (paymentMethod ?? '').toLowerCase();
  return SCHEMES.find(([prefix]) => method.startsWith(prefix))?.[1] ?? 'other';
}

/**
 * What each standard notification makes of a payment, as Formance's Adyen plugin: [type, status when successful,
 * status when not (undefined: the failed operation changed nothing)]. A modification (capture, refund, cancellation,
 * chargeback, …) is a new state of the payment it modifies (`originalReference`), dated by its `eventDate`: an
 * adjustment. Payouts are the merchant account's money going out. Other event codes are acknowledged and ignored.
 */
const EVENTS: Record<string, [type: 'PAY-IN' | 'PAYOUT', success: string, failure?: string]> = {
  AUTHORISATION: ['PAY-IN', 'AUTHORISATION', 'FAILED'],
  AUTHORISATION_ADJUSTMENT: ['PAY-IN', 'AUTHORISATION'],
  CANCELLATION: ['PAY-IN', 'CANCELLED'],
  CAPTURE: ['PAY-IN', 'CAPTURE'],
  CAPTURE_FAILED: ['PAY-IN', 'CAPTURE_FAILED'],
  REFUND: ['PAY-IN', 'REFUNDED'],
  REFUND_WITH_DATA: ['PAY-IN', 'REFUNDED'],
  REFUND_FAILED: ['PAY-IN', 'REFUNDED_FAILURE'],
  REFUNDED_REVERSED: ['PAY-IN', 'REFUNDED_FAILURE'],
  CHARGEBACK: ['PAY-IN', 'DISPUTE_LOST'],
  NOTIFICATION_OF_CHARGEBACK: ['PAY-IN', 'DISPUTE'],
  CHARGEBACK_REVERSED: ['PAY-IN', 'DISPUTE_WON'],
  PAYOUT_THIRDPARTY: ['PAYOUT', 'SUCCEEDED', 'FAILED'],
  PAYOUT_DECLINE: ['PAYOUT', 'FAILED'],
  PAYOUT_EXPIRE: ['PAYOUT', 'EXPIRED'],
};
export const ADYEN_PAYMENT_EVENTS = Object.keys(EVENTS);

/**
 * The key under which one notification item is applied once: Adyen sends an item again (same event, same PSP
 * reference, same outcome) until it gets a 2xx, and each such copy must change nothing.
 */
export const adyenItemKey = (item: NotificationRequestItem): string => `${item.eventCode}:${item.pspReference}:${item.success}`;

/**
 * One standard notification item as a payment state, or undefined when it moves no money the platform records (an
 * event code without a mapping, an unsuccessful modification). The amount is Adyen's integer in its minor unit,
 * unchanged. Throws (plain Error) for an item without the fields every payment event carries.
 */
export function adyenNotificationPayment(item: NotificationRequestItem): ProviderPayment | undefined {
  const mapping = EVENTS[item.eventCode];
  if (!mapping) return undefined;
  const [type, success, failure] = mapping;
  const succeeded = String(item.success) === 'true';
  const status = succeeded ? success : failure;
  if (!status) return undefined;
  const asset = adyenAsset(item.amount?.currency);
  // A value past 2^53 arrives as a bigint (lib/json parses long integers losslessly).
  const value = item.amount?.value as unknown;
  const amount = typeof value === 'bigint' ? value : typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : undefined;
  if (!asset || amount === undefined || amount < 0n)
    throw new Error(`notification ${item.pspReference}: amount must be {currency, value} with value a non-negative integer in minor units`);
  const at = new Date(item.eventDate);
  if (!item.pspReference || Number.isNaN(at.getTime())) throw new Error('a notification item needs pspReference and an ISO eventDate');
  const modification = Boolean(item.originalReference) && item.originalReference !== item.pspReference;
  const account = item.merchantAccountCode;
  return {
    reference: modification ? item.originalReference! : item.pspReference,
    createdAt: at,
    updatedAt: at,
    type,
    status,
    scheme: adyenScheme(item.paymentMethod),
    asset,
    amount,
    ...(type === 'PAYOUT' ? { sourceAccountReference: account } : { destinationAccountReference: account }),
    metadata: {
      'adyen/eventCode': String(item.eventCode),
      'adyen/pspReference': item.pspReference,
      ...(item.merchantReference ? { 'adyen/merchantReference': item.merchantReference } : {}),
      ...(item.reason ? { 'adyen/reason': item.reason } : {}),
    },
    raw: item,
  };
}
