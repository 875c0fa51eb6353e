import type { ProviderAccount, ProviderBalance } from '../../../areas/payments';
import { PAYMENT_SCHEMES, PAYMENT_STATUSES, PAYMENT_TYPES } from '../../../areas/payments';
import type { ProviderPayment } from '../../../areas/payments';
import type { ProviderConversion, ProviderOrder } from '../../../areas/payments';
import { CONVERSION_STATUSES, ORDER_DIRECTIONS, ORDER_STATUSES, ORDER_TYPES, TIME_IN_FORCE } from '../../../areas/payments';
import { invalidData } from './plugin';

/**
 * The item format both plugins read: the simulated provider's files and the generic connector's REST answers use the
 * same JSON objects (documented in docs/payments.md, "Simulated connector"). A malformed item fails the fetch
 * with a message naming it, rather than being skipped silently.
 */
type Item = Record<string, unknown>;

const str = (item: Item, key: string, where: string, optional = false): string | undefined => {
  const value = item[key];
  if (value === undefined && optional) return undefined;
  if (typeof value !== 'string' || value === '') throw invalidData(`${where}: "${key}" must be a non-empty string`);
  return value;
};
const int = (item: Item, key: string, where: string, optional = false): bigint | undefined => {
  const value = item[key];
  if (value === undefined && optional) return undefined;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  throw invalidData(`${where}: "${key}" must be an integer`);
};
const date = (item: Item, key: string, where: string, fallback?: Date): Date => {
  const value = item[key];
  if (value === undefined && fallback) return fallback;
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) throw invalidData(`${where}: "${key}" must be an ISO 8601 date-time`);
  return new Date(value);
};
const oneOf = <T extends string>(value: string, allowed: readonly T[], key: string, where: string): T => {
  if (!allowed.includes(value as T)) throw invalidData(`${where}: "${key}" must be one of ${allowed.join(', ')}`);
  return value as T;
};
const metadata = (item: Item, where: string): Record<string, string> => {
  const value = item.metadata ?? {};
  if (typeof value !== 'object' || Array.isArray(value) || Object.values(value as object).some((v) => typeof v !== 'string')) {
    throw invalidData(`${where}: "metadata" must be an object of strings`);
  }
  return value as Record<string, string>;
};
const items = (data: unknown, what: string): Item[] => {
  if (!Array.isArray(data) || data.some((i) => !i || typeof i !== 'object' || Array.isArray(i)))
    throw invalidData(`${what}: expected an array of objects`);
  return data as Item[];
};

// Accounts without a createdAt get a fixed epoch date, so refetching them never looks like a change.
const EPOCH = new Date(0);

export function parseAccount(item: Item, where: string): ProviderAccount {
  return {
    reference: str(item, 'reference', where)!,
    type: oneOf(str(item, 'type', where, true) ?? 'INTERNAL', ['INTERNAL', 'EXTERNAL'] as const, 'type', where),
    name: str(item, 'name', where, true),
    defaultAsset: str(item, 'defaultAsset', where, true),
    createdAt: date(item, 'createdAt', where, EPOCH),
    metadata: metadata(item, where),
    raw: item,
  };
}

export function parseBalance(item: Item, where: string): ProviderBalance {
  return { accountReference: str(item, 'accountReference', where)!, asset: str(item, 'asset', where)!, amount: int(item, 'amount', where)! };
}

export function parsePayment(item: Item, where: string): ProviderPayment {
  const createdAt = date(item, 'createdAt', where);
  return {
    reference: str(item, 'reference', where)!,
    createdAt,
    updatedAt: date(item, 'updatedAt', where, createdAt),
    type: oneOf(str(item, 'type', where)!, PAYMENT_TYPES, 'type', where),
    status: oneOf(str(item, 'status', where)!, PAYMENT_STATUSES, 'status', where),
    scheme: oneOf((str(item, 'scheme', where, true) ?? 'other').toLowerCase(), PAYMENT_SCHEMES, 'scheme', where),
    asset: str(item, 'asset', where)!,
    amount: int(item, 'amount', where)!,
    initialAmount: int(item, 'initialAmount', where, true),
    sourceAccountReference: str(item, 'sourceAccountReference', where, true),
    destinationAccountReference: str(item, 'destinationAccountReference', where, true),
    metadata: metadata(item, where),
    raw: item,
  };
}

export const parseAccounts = (data: unknown, what: string) => items(data, what).map((i, n) => parseAccount(i, `${what}[${n}]`));
export const parseBalances = (data: unknown, what: string) => items(data, what).map((i, n) => parseBalance(i, `${what}[${n}]`));
export const parsePayments = (data: unknown, what: string) => items(data, what).map((i, n) => parsePayment(i, `${what}[${n}]`));

/** `conversions.json` items (docs/payments.md): a swap between two assets in its latest state. */
export function parseConversion(item: Item, where: string): ProviderConversion {
  const createdAt = date(item, 'createdAt', where);
  return {
    reference: str(item, 'reference', where)!,
    createdAt,
    updatedAt: date(item, 'updatedAt', where, createdAt),
    status: oneOf(str(item, 'status', where)!, CONVERSION_STATUSES, 'status', where),
    sourceAsset: str(item, 'sourceAsset', where)!,
    destinationAsset: str(item, 'destinationAsset', where)!,
    sourceAmount: int(item, 'sourceAmount', where)!,
    destinationAmount: int(item, 'destinationAmount', where, true),
    fee: int(item, 'fee', where, true),
    feeAsset: str(item, 'feeAsset', where, true),
    sourceAccountReference: str(item, 'sourceAccountReference', where, true),
    destinationAccountReference: str(item, 'destinationAccountReference', where, true),
    error: str(item, 'error', where, true),
    metadata: metadata(item, where),
    raw: item,
  };
}

/** `orders.json` items (docs/payments.md): an exchange order in its latest state. */
export function parseOrder(item: Item, where: string): ProviderOrder {
  const createdAt = date(item, 'createdAt', where);
  const expiresAt = item.expiresAt === undefined ? undefined : date(item, 'expiresAt', where);
  return {
    reference: str(item, 'reference', where)!,
    createdAt,
    updatedAt: date(item, 'updatedAt', where, createdAt),
    direction: oneOf(str(item, 'direction', where)!, ORDER_DIRECTIONS, 'direction', where),
    type: oneOf(str(item, 'type', where)!, ORDER_TYPES, 'type', where),
    status: oneOf(str(item, 'status', where)!, ORDER_STATUSES, 'status', where),
    timeInForce: oneOf(str(item, 'timeInForce', where, true) ?? 'GOOD_UNTIL_CANCELLED', TIME_IN_FORCE, 'timeInForce', where),
    sourceAsset: str(item, 'sourceAsset', where)!,
    destinationAsset: str(item, 'destinationAsset', where)!,
    baseQuantityOrdered: int(item, 'baseQuantityOrdered', where)!,
    baseQuantityFilled: int(item, 'baseQuantityFilled', where, true),
    limitPrice: int(item, 'limitPrice', where, true),
    stopPrice: int(item, 'stopPrice', where, true),
    averageFillPrice: int(item, 'averageFillPrice', where, true),
    quoteAmount: int(item, 'quoteAmount', where, true),
    fee: int(item, 'fee', where, true),
    priceAsset: str(item, 'priceAsset', where, true),
    quoteAsset: str(item, 'quoteAsset', where, true),
    feeAsset: str(item, 'feeAsset', where, true),
    clientOrderID: str(item, 'clientOrderID', where, true),
    error: str(item, 'error', where, true),
    ...(expiresAt ? { expiresAt } : {}),
    sourceAccountReference: str(item, 'sourceAccountReference', where, true),
    destinationAccountReference: str(item, 'destinationAccountReference', where, true),
    metadata: metadata(item, where),
    raw: item,
  };
}

export const parseConversions = (data: unknown, what: string) => items(data, what).map((i, n) => parseConversion(i, `${what}[${n}]`));
export const parseOrders = (data: unknown, what: string) => items(data, what).map((i, n) => parseOrder(i, `${what}[${n}]`));
