import { createHash } from 'node:crypto';
import type { ProviderAccount, ProviderPayment } from '../../../areas/payments';
import { invalidData } from './plugin';

/**
 * Mangopay's objects as the platform stores them (Formance's Mangopay plugin made the same choices): pure functions the
 * plugin (mangopay.ts) maps what it fetches, creates and reads back for a callback with.
 */

/** Mangopay's currencies and their minor units (https://mangopay.com/docs/api-basics/data-formats, as Formance lists them). */
const CURRENCY_DECIMALS: Record<string, number> = {
  AED: 2,
  AUD: 2,
  CAD: 2,
  CHF: 2,
  CZK: 2,
  DKK: 2,
  EUR: 2,
  GBP: 2,
  HKD: 2,
  JPY: 0,
  NOK: 2,
  PLN: 2,
  SEK: 2,
  USD: 2,
  ZAR: 2,
};

/** `EUR` → `EUR/2`, `JPY` → `JPY/0`; undefined for a currency Mangopay does not hold. Amounts are already minor units. */
export const mangopayAsset = (currency: unknown): string | undefined =>
  typeof currency === 'string' && currency in CURRENCY_DECIMALS ? `${currency}/${CURRENCY_DECIMALS[currency]}` : undefined;

/** The platform's asset and amount as Mangopay's Funds, or undefined when the decimals are not the currency's (`JPY/2`). */
export function mangopayFunds(asset: string, amount: bigint): { Currency: string; Amount: number } | undefined {
  const match = /^([A-Z]{3})\/([0-9]+)$/.exec(asset);
  if (!match || CURRENCY_DECIMALS[match[1]] !== Number(match[2])) return undefined;
  if (amount <= 0n || amount > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return { Currency: match[1], Amount: Number(amount) };
}

/** The hooks the connector registers (one per event type: Mangopay keeps one active hook per type), Formance's list. */
export const MANGOPAY_WEBHOOK_EVENTS = [
  'TRANSFER_NORMAL_CREATED',
  'TRANSFER_NORMAL_FAILED',
  'TRANSFER_NORMAL_SUCCEEDED',
  'PAYOUT_NORMAL_CREATED',
  'PAYOUT_NORMAL_FAILED',
  'PAYOUT_NORMAL_SUCCEEDED',
  'INSTANT_PAYOUT_FAILED',
  'INSTANT_PAYOUT_SUCCEEDED',
  'PAYIN_NORMAL_CREATED',
  'PAYIN_NORMAL_FAILED',
  'PAYIN_NORMAL_SUCCEEDED',
  'TRANSFER_REFUND_FAILED',
  'TRANSFER_REFUND_SUCCEEDED',
  'PAYOUT_REFUND_FAILED',
  'PAYOUT_REFUND_SUCCEEDED',
  'PAYIN_REFUND_FAILED',
  'PAYIN_REFUND_SUCCEEDED',
] as const;

export type Obj = Record<string, any>;
const EPOCH = new Date(0);
const at = (seconds: unknown): Date => (typeof seconds === 'number' && seconds > 0 ? new Date(seconds * 1000) : EPOCH);
const USER_ID = 'userID'; // Formance's metadata key for a wallet's or bank account's owner.

const STATUS: Record<string, string> = { CREATED: 'PENDING', SUCCEEDED: 'SUCCEEDED', FAILED: 'FAILED' };
const TYPE: Record<string, string> = { PAYIN: 'PAY-IN', PAYOUT: 'PAYOUT', TRANSFER: 'TRANSFER' };

/**
 * A transaction (a wallet's, or a pay-in, transfer, payout or refund read back) as a payment, or undefined in a currency
 * Mangopay does not list (it cannot be written exactly). The amount is the debited funds, as Formance reads it. A
 * refund (Nature REFUND, or a refund object) is a payment of its own, REFUNDED or REFUNDED_FAILURE, naming the
 * transaction it refunds.
 */
export function mangopayPayment(t: Obj, overrides: { type?: string; status?: string; destination?: string } = {}): ProviderPayment | undefined {
  const funds = t.DebitedFunds ?? {};
  const asset = mangopayAsset(funds.Currency);
  if (!asset || typeof t.Id !== 'string' || !Number.isSafeInteger(funds.Amount)) return undefined;
  const refund = t.Nature === 'REFUND' || typeof t.InitialTransactionId === 'string';
  const status =
    overrides.status ??
    (refund ? (t.Status === 'FAILED' ? 'REFUNDED_FAILURE' : t.Status === 'SUCCEEDED' ? 'REFUNDED' : 'PENDING') : STATUS[t.Status]);
  const createdAt = at(t.CreationDate);
  const destination = overrides.destination ?? (t.CreditedWalletId || t.BankAccountId || undefined);
  return {
    reference: t.Id,
    createdAt,
    updatedAt: t.ExecutionDate ? at(t.ExecutionDate) : createdAt,
    type: overrides.type ?? TYPE[t.Type ?? t.InitialTransactionType] ?? 'OTHER',
    status: status ?? 'OTHER',
    scheme: 'other',
    asset,
    amount: BigInt(Math.abs(funds.Amount)),
    ...(t.DebitedWalletId ? { sourceAccountReference: t.DebitedWalletId } : {}),
    ...(destination ? { destinationAccountReference: destination } : {}),
    metadata: {
      ...(t.Tag ? { 'mangopay/tag': String(t.Tag) } : {}),
      ...(t.InitialTransactionId ? { 'mangopay/initialTransactionID': t.InitialTransactionId } : {}),
      ...(t.ResultCode && t.ResultCode !== '000000' ? { 'mangopay/resultCode': String(t.ResultCode) } : {}),
    },
    raw: t,
  };
}

export const mangopayWallet = (wallet: Obj, userID: string): ProviderAccount => ({
  reference: wallet.Id,
  type: 'INTERNAL',
  name: wallet.Description || wallet.Id,
  ...(mangopayAsset(wallet.Currency) ? { defaultAsset: mangopayAsset(wallet.Currency) } : {}),
  createdAt: at(wallet.CreationDate),
  metadata: { [USER_ID]: userID, ...(wallet.Tag ? { 'mangopay/tag': String(wallet.Tag) } : {}) },
  raw: wallet,
});

export const mangopayBankAccount = (bank: Obj, userID: string): ProviderAccount => ({
  reference: bank.Id,
  type: 'EXTERNAL',
  name: bank.OwnerName || bank.Id,
  createdAt: at(bank.CreationDate),
  metadata: { [USER_ID]: userID, ...(bank.Type ? { 'mangopay/type': String(bank.Type) } : {}) },
  raw: bank,
});

/**
 * The payments cursor: per wallet, the newest creation second read and the ids read at that second; and the
 * transactions read while still CREATED (id → the resource's path), read again each run until they settle.
 */
export interface MangopayPaymentsCursor {
  wallets: Record<string, { after: number; ids: string[] }>;
  pending?: Record<string, string>;
}

/** At most this many pending transactions are read again per run (the oldest first; the rest wait for the next run). */
export const PENDING_READS = 200;
export const resourceOf = (t: Obj): string | undefined =>
  t.Nature === 'REFUND' ? 'refunds' : ({ PAYIN: 'payins', TRANSFER: 'transfers', PAYOUT: 'payouts' } as Record<string, string>)[t.Type];

/** A webhook callback's query (Mangopay calls the hook's URL with GET `?EventType=…&RessourceId=…&Date=…`). */
export function callbackOf(query: Record<string, string>): { eventType: string; resourceID: string; date: number } {
  const eventType = query.EventType;
  const resourceID = query.RessourceId ?? query.ResourceId;
  const date = Number(query.Date);
  if (!(MANGOPAY_WEBHOOK_EVENTS as readonly string[]).includes(eventType)) throw invalidData(`Mangopay callback: unsupported EventType ${eventType}`);
  if (typeof resourceID !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(resourceID)) throw invalidData('Mangopay callback: RessourceId must be an id');
  if (!Number.isSafeInteger(date) || date <= 0) throw invalidData('Mangopay callback: Date must be a Unix time');
  return { eventType, resourceID, date };
}

/**
 * Mangopay's Idempotency-Key is 16 to 36 characters of letters, digits and dashes; a longer key of the platform is
 * hashed into that form (the same key always gives the same header, so a retry is still one request to Mangopay).
 */
export const mangopayIdempotencyKey = (key: string): string =>
  /^[A-Za-z0-9-]{16,36}$/.test(key) ? key : createHash('sha256').update(key).digest('hex').slice(0, 36);
