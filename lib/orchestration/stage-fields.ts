import {
  ADDRESS_PATTERN,
  ASSET_PATTERN,
  BALANCE_NAME_PATTERN,
  LEDGER_NAME_PATTERN,
  PAYMENT_ASSET_PATTERN,
  PROVIDER_OBJECT_ID_PATTERN,
  UUID_PATTERN,
  WALLET_NAME_MAX_LENGTH,
} from '../grammar';
import { ConfigError, EVENT_NAME_MAX_LENGTH } from './stage-types';

const VARIABLE = /\$\{[^}]*\}/g;
const grammar = {
  address: new RegExp(ADDRESS_PATTERN),
  asset: new RegExp(ASSET_PATTERN),
  paymentAsset: new RegExp(PAYMENT_ASSET_PATTERN),
  ledger: new RegExp(LEDGER_NAME_PATTERN),
  balance: new RegExp(BALANCE_NAME_PATTERN),
  uuid: new RegExp(UUID_PATTERN),
  providerObject: new RegExp(PROVIDER_OBJECT_ID_PATTERN),
};

/**
 * Field checks that name the offending path; strings with variables pass until the stage is resolved.
 *
 * The identifier checks (address, ledger, wallet, balance, payment and connector ids, event name) judge the literals of
 * a config being validated only. A value that comes from a variable is judged at run time by the service that uses it,
 * as before: resolution, which the instance workflow replays, then makes the same decisions for recorded runs.
 */
export class Fields {
  constructor(
    private readonly base: string,
    readonly resolved: boolean,
  ) {}

  error(path: string, message: string): ConfigError {
    return new ConfigError(path ? `${this.base}.${path}` : this.base, message);
  }

  isVariable(value: string): boolean {
    return !this.resolved && /\$\{[^}]*\}/.test(value);
  }

  /** A value of a config being validated that no variable will change. */
  private isLiteral(value: string): boolean {
    return !this.resolved && !this.isVariable(value);
  }

  object(value: unknown, path: string, allowed: string[]): Record<string, unknown> {
    const o = value ?? {};
    if (typeof o !== 'object' || Array.isArray(o)) throw this.error(path, 'must be an object');
    const unknown = Object.keys(o).find((key) => !allowed.includes(key));
    if (unknown !== undefined) throw this.error(path ? `${path}.${unknown}` : unknown, 'unknown field');
    return o as Record<string, unknown>;
  }

  oneOf(o: Record<string, unknown>, path: string, keys: string[]): string {
    const present = keys.filter((key) => o[key] !== undefined && o[key] !== null);
    if (present.length !== 1) throw this.error(path, `exactly one of ${keys.join(', ')} is required`);
    return present[0];
  }

  string(value: unknown, path: string, required: boolean): string {
    if (value === undefined || value === null) value = '';
    if (typeof value !== 'string') throw this.error(path, 'must be a string');
    if (required && value === '') throw this.error(path, 'is required');
    return value;
  }

  /**
   * An address with variables is judged with each one as `a`, the most permissive value: when even that breaks the
   * grammar (`orch:😀:${id}`, `users:${id}:`), no value can mend it.
   */
  address(value: unknown, path: string): string {
    const address = this.string(value, path, true);
    if (!this.resolved && !grammar.address.test(address.replace(VARIABLE, 'a'))) throw this.error(path, `invalid account address "${address}"`);
    return address;
  }

  ledger(value: unknown, path: string): string {
    const ledger = this.string(value, path, false) || 'default';
    if (this.isLiteral(ledger) && !grammar.ledger.test(ledger)) throw this.error(path, `invalid ledger name "${ledger}"`);
    return ledger;
  }

  walletId(value: unknown, path: string): string {
    const id = this.string(value, path, false);
    if (id && this.isLiteral(id) && !grammar.uuid.test(id)) throw this.error(path, `"${id}" is not a wallet id (a UUID)`);
    return id;
  }

  walletName(value: unknown, path: string): string {
    const name = this.string(value, path, false);
    if (this.isLiteral(name) && name.length > WALLET_NAME_MAX_LENGTH)
      throw this.error(path, `is longer than a wallet name can be (${WALLET_NAME_MAX_LENGTH})`);
    return name;
  }

  /** `all`: `*` (every balance, in debit order) is accepted too, where a debit takes the money. */
  balance(value: unknown, path: string, all: boolean): string {
    const balance = this.string(value, path, false) || 'main';
    const valid = grammar.balance.test(balance) || (all && balance === '*');
    if (this.isLiteral(balance) && !valid) throw this.error(path, `invalid balance name "${balance}"${all ? ' (a name or *)' : ''}`);
    return balance;
  }

  /** Payment and connector ids. */
  providerObjectId(value: unknown, path: string, required: boolean): string {
    const id = this.string(value, path, required);
    if (id && this.isLiteral(id) && !grammar.providerObject.test(id)) throw this.error(path, `"${id}" is not a payments id (base64url)`);
    return id;
  }

  eventName(value: unknown, path: string): string {
    const name = this.string(value, path, true);
    if (this.isLiteral(name) && name.length > EVENT_NAME_MAX_LENGTH)
      throw this.error(path, `is longer than an event name can be (${EVENT_NAME_MAX_LENGTH})`);
    return name;
  }

  /** A send to a payment also goes through the payments area, whose assets have no `_SUFFIX`. */
  asset(value: unknown, path: string, toPayment: boolean): string {
    const asset = this.string(value, path, true);
    if (!this.isVariable(asset) && !(toPayment ? grammar.paymentAsset : grammar.asset).test(asset)) {
      throw this.error(path, `"${asset}" is not an asset${toPayment ? ' a payment provider takes' : ''} (e.g. USD/2)`);
    }
    return asset;
  }

  amount(value: unknown, path: string): bigint {
    if (typeof value === 'bigint' && value >= 0n) return value;
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
    if (typeof value === 'string' && /^\d+$/.test(value)) return BigInt(value);
    if (typeof value === 'string' && this.isVariable(value)) return 0n;
    throw this.error(path, 'must be a non-negative integer (or a string of digits, possibly from a ${variable})');
  }

  metadata(value: unknown, path: string, required: boolean): Record<string, string> {
    if (value === undefined || value === null) {
      if (required) throw this.error(path, 'is required');
      return {};
    }
    if (typeof value !== 'object' || Array.isArray(value)) throw this.error(path, 'must be an object of strings');
    for (const [key, item] of Object.entries(value)) if (typeof item !== 'string') throw this.error(`${path}.${key}`, 'must be a string');
    return value as Record<string, string>;
  }
}
