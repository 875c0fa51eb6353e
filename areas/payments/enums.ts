/** Value sets of the payments area (Formance's payments v2 API, which the spec's Payment shape follows). */
export const PAYMENT_TYPES = ['PAY-IN', 'PAYOUT', 'TRANSFER', 'OTHER'] as const;
export const PAYMENT_STATUSES = [
  'PENDING',
  'SUCCEEDED',
  'CANCELLED',
  'FAILED',
  'EXPIRED',
  'REFUNDED',
  'REFUNDED_FAILURE',
  'DISPUTE',
  'DISPUTE_WON',
  'DISPUTE_LOST',
  'AUTHORISATION',
  'CAPTURE',
  'CAPTURE_FAILED',
  'OTHER',
] as const;
/** Lower case, as the legacy payments list writes them. */
export const PAYMENT_SCHEMES = [
  'unknown',
  'other',
  'visa',
  'mastercard',
  'amex',
  'diners',
  'discover',
  'jcb',
  'unionpay',
  'alipay',
  'cup',
  'sepa debit',
  'sepa credit',
  'sepa',
  'apple pay',
  'google pay',
  'doku',
  'dragonpay',
  'maestro',
  'molpay',
  'a2a',
  'ach debit',
  'ach',
  'rtp',
] as const;
export const ACCOUNT_TYPES = ['INTERNAL', 'EXTERNAL'] as const;
export const PAYMENT_INITIATION_TYPES = ['TRANSFER', 'PAYOUT'] as const;
export const PAYMENT_INITIATION_STATUSES = [
  'WAITING_FOR_VALIDATION',
  'SCHEDULED_FOR_PROCESSING',
  'PROCESSING',
  'PROCESSED',
  'FAILED',
  'REJECTED',
  'REVERSE_PROCESSING',
  'REVERSE_FAILED',
  'REVERSED',
] as const;

export type PaymentType = (typeof PAYMENT_TYPES)[number];
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export type PaymentInitiationStatus = (typeof PAYMENT_INITIATION_STATUSES)[number];

/** `EUR/2`, `USD`, `BTC/8`: an upper-case code and an optional number of decimals, as Formance writes assets. */
export { PAYMENT_ASSET_PATTERN as ASSET_PATTERN } from '../../lib/grammar';

/** The spec's `provider` is upper case (DUMMY-PAY, GENERIC...); connectors store the plugin name in lower case. */
export const providerLabel = (provider: string): string => provider.toUpperCase();
