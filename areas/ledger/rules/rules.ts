import { ApiError, validationError } from '../../../lib/errors';
import { ADDRESS_PATTERN, ASSET_PATTERN, LEDGER_NAME_PATTERN } from '../../../lib/grammar';
import type { Knex } from 'knex';
import type { Posting } from '../types';

/** Formance's rules (pkg/accounts, pkg/assets): the same patterns guard the HTTP schemas and in-process callers. */
export { ADDRESS_PATTERN, ASSET_PATTERN, LEDGER_NAME_PATTERN };

const address = new RegExp(ADDRESS_PATTERN);
const asset = new RegExp(ASSET_PATTERN);
const ledgerName = new RegExp(LEDGER_NAME_PATTERN);

/** `v2` would make `/api/ledger/v2/...` ambiguous between the v1 and v2 paths; `_`-names are Formance's reserved ones. */
const RESERVED_LEDGER_NAMES = new Set(['v2', '_', '_info', '_healthcheck']);

export function assertAddress(value: string, where: string): void {
  if (typeof value !== 'string' || !address.test(value)) throw validationError(`${where}: invalid account address "${value}"`);
}

export function assertAsset(value: string, where: string): void {
  if (typeof value !== 'string' || !asset.test(value)) throw validationError(`${where}: invalid asset "${value}"`);
}

export function assertLedgerName(name: string): void {
  if (!ledgerName.test(name) || RESERVED_LEDGER_NAMES.has(name)) {
    throw validationError(
      `invalid ledger name "${name}": it must match ${LEDGER_NAME_PATTERN} and not be one of ${[...RESERVED_LEDGER_NAMES].join(', ')}`,
    );
  }
}

/** Metadata values are strings in ledger v2; in-process callers get the same 400 as HTTP callers. */
export function assertMetadata(metadata: unknown, where: string): asserts metadata is Record<string, string> {
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) throw validationError(`${where}: must be an object`);
  for (const [key, value] of Object.entries(metadata)) {
    if (typeof value !== 'string') throw validationError(`${where}.${key}: must be a string`);
  }
}

/** @throws ApiError VALIDATION for a bad address, asset or a negative/non-integer amount. */
export function assertPostings(postings: Posting[], where = 'postings'): void {
  postings.forEach((p, i) => {
    assertAddress(p.source, `${where}[${i}].source`);
    assertAddress(p.destination, `${where}[${i}].destination`);
    assertAsset(p.asset, `${where}[${i}].asset`);
    if (typeof p.amount !== 'bigint' || p.amount < 0n) throw new ApiError('VALIDATION', `${where}[${i}].amount: must be an integer >= 0`);
  });
}

/**
 * Turns an address filter into a SQL regular expression, Formance style: an empty segment matches any one segment
 * (`users:` matches `users:1`), a trailing `...` any depth (`users:...`). Returns undefined for a plain address.
 */
export function addressPatternRegex(pattern: string): string | undefined {
  const segments = pattern.split(':');
  const deep = segments[segments.length - 1] === '...';
  if (deep) segments.pop();
  if (!deep && segments.every((s) => s !== '')) return undefined;
  const escape = (s: string) => s.replace(/[^a-zA-Z0-9_]/g, (c) => `\\${c}`);
  const body = segments.map((s) => (s === '' ? '[^:]+' : escape(s))).join(':');
  return `^${body}${deep ? '(:.+)?' : ''}$`;
}

/** Restricts `query` to the rows whose `column` matches an address filter (a plain address or a pattern). */
export function whereAddress(query: Knex.QueryBuilder, pattern: string, column = 'address'): void {
  const regex = addressPatternRegex(pattern);
  if (regex) query.whereRaw('?? ~ ?', [column, regex]);
  else query.where(column, pattern);
}
