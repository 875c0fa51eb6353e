import type { Portion, Pos, VarType } from './ast';
import { compilationError } from './errors';

/**
 * Runtime values of Numscript and the ledger's rules for them. Amounts are bigint everywhere: nothing here ever goes
 * through a JS number, so amounts of any size stay exact.
 */
export const ACCOUNT_PATTERN = /^[a-zA-Z0-9_-]+(:[a-zA-Z0-9_-]+)*$/;
export const ASSET_PATTERN = /^[A-Z][A-Z0-9]{0,16}(_[A-Z]{1,16})?(\/\d{1,6})?$/;

export interface Monetary {
  asset: string;
  amount: bigint;
}

export type Value =
  | { type: 'account'; value: string }
  | { type: 'monetary'; value: Monetary }
  | { type: 'portion'; value: Portion }
  | { type: 'number'; value: bigint }
  | { type: 'string'; value: string }
  | { type: 'asset'; value: string };

export type ValueOf<T extends VarType> = Extract<Value, { type: T }>['value'];

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** A portion in lowest terms; undefined when it is not within [0, 1] or the denominator is zero. */
export function makePortion(num: bigint, den: bigint): Portion | undefined {
  if (den <= 0n || num < 0n || num > den) return undefined;
  const divisor = gcd(num, den) || 1n;
  return { num: num / divisor, den: den / divisor };
}

/** Parses `1/3`, `1 / 3`, `25%` or `12.5%` (exactly: 12.5% is 1/8); no other spaces, as Formance. */
export function parsePortion(text: string): Portion | undefined {
  const ratio = /^(\d+) ?\/ ?(\d+)$/.exec(text);
  if (ratio) return makePortion(BigInt(ratio[1]), BigInt(ratio[2]));
  const percent = /^(\d+)(?:\.(\d+))?%$/.exec(text);
  if (!percent) return undefined;
  const decimals = percent[2] ?? '';
  return makePortion(BigInt(percent[1] + decimals), 100n * 10n ** BigInt(decimals.length));
}

/** `num / den` in lowest terms with a positive denominator (any value: `$x/2` may exceed 1). */
export function ratio(num: bigint, den: bigint, pos: Pos): Portion {
  if (den === 0n) throw compilationError(pos, 'division by zero');
  if (den < 0n) [num, den] = [-num, -den];
  const divisor = gcd(num < 0n ? -num : num, den) || 1n;
  return { num: num / divisor, den: den / divisor };
}

export function addPortions(a: Portion, b: Portion): Portion {
  const num = a.num * b.den + b.num * a.den;
  const den = a.den * b.den;
  const divisor = gcd(num, den) || 1n;
  return { num: num / divisor, den: den / divisor };
}

/** Parses a JSON-ish or metadata value into a typed value; undefined when it does not fit the type. */
export function parseValue(type: VarType, raw: unknown): Value | undefined {
  switch (type) {
    case 'account':
      return typeof raw === 'string' && ACCOUNT_PATTERN.test(raw) ? { type, value: raw } : undefined;
    case 'asset':
      return typeof raw === 'string' && ASSET_PATTERN.test(raw) ? { type, value: raw } : undefined;
    case 'string':
      return typeof raw === 'string' ? { type, value: raw } : undefined;
    case 'number': {
      const value = toInteger(raw);
      return value === undefined ? undefined : { type, value };
    }
    case 'portion': {
      const value = typeof raw === 'string' ? parsePortion(raw) : undefined;
      return value && { type, value };
    }
    case 'monetary': {
      const value = parseMonetary(raw);
      return value && { type, value };
    }
  }
}

/**
 * "USD/2 100" (Formance's form: exactly one space, no padding, an optional sign); `{asset, amount}` is accepted too.
 * A negative amount parses (as in Formance) and is refused where it is used (a send of it, a save).
 */
function parseMonetary(raw: unknown): Monetary | undefined {
  let asset: unknown;
  let amount: bigint | undefined;
  if (typeof raw === 'string') {
    const match = /^(\S+) ([+-]?\d+)$/.exec(raw);
    if (!match) return undefined;
    [asset, amount] = [match[1], BigInt(match[2])];
  } else if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    asset = (raw as Record<string, unknown>).asset;
    amount = toInteger((raw as Record<string, unknown>).amount);
  }
  if (typeof asset !== 'string' || !ASSET_PATTERN.test(asset) || amount === undefined) return undefined;
  return { asset, amount };
}

/** An integer given as a bigint, a safe-integer number, or a string of digits with an optional sign (no padding). */
function toInteger(raw: unknown): bigint | undefined {
  if (typeof raw === 'bigint') return raw;
  if (typeof raw === 'number') return Number.isSafeInteger(raw) ? BigInt(raw) : undefined;
  if (typeof raw === 'string' && /^[+-]?\d+$/.test(raw)) return BigInt(raw);
  return undefined;
}

/** The string form written into metadata by set_tx_meta/set_account_meta; meta() reads the same forms back. */
export function formatValue(value: Value): string {
  switch (value.type) {
    case 'monetary':
      return `${value.value.asset} ${value.value.amount}`;
    case 'portion':
      return `${value.value.num}/${value.value.den}`;
    case 'number':
      return value.value.toString();
    default:
      return value.value;
  }
}

/** How a var of each type is written in JSON, for error messages. */
export const EXPECTED_FORM: Record<VarType, string> = {
  account: 'account address like "users:001"',
  monetary: 'monetary "[ASSET n]" written "ASSET n" like "USD/2 100"',
  portion: 'portion like "1/3" or "25%"',
  number: 'integer like 42 or "42"',
  string: 'string',
  asset: 'asset like "USD/2"',
};

/** `a monetary`, `an account`: for error messages. */
export function withArticle(type: VarType): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
