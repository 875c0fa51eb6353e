import { ADDRESS_PATTERN, ASSET_PATTERN, LEDGER_NAME_PATTERN } from '../../lib/grammar';
import type { JsonSchema } from '../routing';
import {
  anyObjectSchema,
  arraySchema,
  bigIntegerSchema,
  booleanSchema,
  dateTimeSchema,
  ignoredParam,
  int64IdSchema,
  integerSchema,
  listQuerySchema,
  member,
  metadataSchema,
  objectSchema,
  stringSchema,
  withMetadataFilters,
  type MetadataFilters,
} from './common';

export const stringMap: JsonSchema = { type: 'object', additionalProperties: { type: 'string' } };
const amount = (description: string): JsonSchema => ({ ...bigIntegerSchema(description), minimum: undefined });
export const addressSchema = stringSchema({ pattern: ADDRESS_PATTERN, maxLength: 1024, description: 'Account address, e.g. `users:42`.' });
export const assetSchema = stringSchema({ pattern: ASSET_PATTERN, description: 'Asset, e.g. `USD/2`.' });

const ledgerName = () => stringSchema({ minLength: 1, maxLength: 63 });
export const ledgerParams = objectSchema({ ledger: ledgerName() }, ['ledger']);
export const newLedgerParams = objectSchema({ ledger: stringSchema({ pattern: LEDGER_NAME_PATTERN }) }, ['ledger']);
export const transactionIdSchema = int64IdSchema('Transaction id, an integer from 0 to 2^63 - 1.');
export const txParams = <N extends 'id' | 'txid'>(name: N) => objectSchema({ ledger: ledgerName(), ...member(name, transactionIdSchema) }, ['ledger', name]);
export const accountParams = objectSchema({ ledger: ledgerName(), address: addressSchema }, ['ledger', 'address']);

export const ledgerSchema = objectSchema(
  { name: { type: 'string' }, addedAt: dateTimeSchema, bucket: { type: 'string' }, metadata: stringMap },
  ['name', 'addedAt', 'bucket', 'metadata'],
);

export const postingSchema = objectSchema(
  { source: addressSchema, destination: addressSchema, amount: bigIntegerSchema('Amount in the asset\'s smallest unit, any size.'), asset: assetSchema },
  ['source', 'destination', 'amount', 'asset'],
);

export const volumeSchema = objectSchema({ input: amount('Sum received'), output: amount('Sum sent'), balance: amount('input - output; may be negative') }, ['input', 'output', 'balance']);
export const volumesSchema: JsonSchema = { type: 'object', additionalProperties: volumeSchema, description: 'Volumes by asset.' };
export const volumesByAccountSchema: JsonSchema = { type: 'object', additionalProperties: volumesSchema, description: 'Volumes by account, then asset.' };

/** Op 11's LedgerTransaction (v1 path): `txid` and exactly the spec's fields. */
export const v1TransactionSchema = objectSchema(
  {
    txid: transactionIdSchema,
    timestamp: dateTimeSchema,
    postings: { type: 'array', items: postingSchema },
    reference: { type: 'string', description: 'Empty string when the transaction has none.' },
    metadata: stringMap,
    preCommitVolumes: volumesByAccountSchema,
    postCommitVolumes: volumesByAccountSchema,
  },
  ['txid', 'timestamp', 'postings', 'reference', 'metadata', 'preCommitVolumes', 'postCommitVolumes'],
);

export const v2TransactionSchema = objectSchema(
  {
    id: transactionIdSchema,
    timestamp: dateTimeSchema,
    postings: { type: 'array', items: postingSchema },
    reference: { type: 'string' },
    metadata: stringMap,
    insertedAt: dateTimeSchema,
    reverted: { type: 'boolean' },
    revertedAt: dateTimeSchema,
    preCommitVolumes: volumesByAccountSchema,
    postCommitVolumes: volumesByAccountSchema,
  },
  ['id', 'timestamp', 'postings', 'metadata', 'insertedAt', 'reverted', 'preCommitVolumes', 'postCommitVolumes'],
);

export const accountSchema = objectSchema(
  { address: addressSchema, metadata: stringMap, volumes: volumesSchema, effectiveVolumes: volumesSchema },
  ['address', 'metadata', 'volumes', 'effectiveVolumes'],
);

export const createLedgerBodySchema = objectSchema({ bucket: stringSchema({ pattern: '^[0-9a-zA-Z_-]{1,63}$' }), metadata: metadataSchema });

export const createTransactionBodySchema = objectSchema({
  postings: arraySchema(postingSchema, { maxItems: 1000 }),
  script: objectSchema({ plain: stringSchema({ minLength: 1, maxLength: 100_000 }), vars: anyObjectSchema() }, ['plain']),
  reference: stringSchema({ maxLength: 1000 }),
  metadata: metadataSchema,
  timestamp: dateTimeSchema,
});

export const revertBodySchema = objectSchema({ metadata: metadataSchema });

const pattern = (what: string) => stringSchema({ maxLength: 1024, description: `${what}: an address, or a pattern (\`users:\` one level, \`users:...\` any depth).` });

export const listLedgersQuery = {
  ...listQuerySchema({
    includeDeleted: ignoredParam(booleanSchema({ description: 'Ledgers are never deleted here.' })),
    sort: ignoredParam(stringSchema({ description: 'The order is always oldest first.' })),
  }),
  additionalProperties: false,
};
export const transactionFilters = {
  account: pattern('Source or destination'),
  source: pattern('Source'),
  destination: pattern('Destination'),
  reference: stringSchema(),
  startTime: { ...dateTimeSchema, description: 'Timestamp >= startTime.' },
  endTime: { ...dateTimeSchema, description: 'Timestamp < endTime.' },
};
export const accountFilters = { address: pattern('Address') };
export const listTransactionsQuery = withMetadataFilters(listQuerySchema(transactionFilters));
export const listAccountsQuery = withMetadataFilters(listQuerySchema(accountFilters));
/** HEAD counts take the filters of their list, without its page. */
export const countTransactionsQuery = withMetadataFilters(objectSchema(transactionFilters));
export const countAccountsQuery = withMetadataFilters(objectSchema(accountFilters));
export const listVolumesQuery = {
  ...listQuerySchema({
    ...accountFilters,
    startTime: { ...dateTimeSchema, description: 'Only transactions at or after startTime (then volumes are summed from postings).' },
    endTime: { ...dateTimeSchema, description: 'Only transactions before endTime (then volumes are summed from postings).' },
    insertionDate: booleanSchema({ description: 'startTime and endTime bound the insertion date instead of the timestamp.' }),
    groupBy: integerSchema({ minimum: 1, maximum: 64, description: 'Group addresses by their first N segments.' }),
  }),
  additionalProperties: false,
};
export const volumesWithBalanceSchema = objectSchema(
  { account: { type: 'string' }, asset: assetSchema, input: amount('Sum received'), output: amount('Sum sent'), balance: amount('input - output; may be negative') },
  ['account', 'asset', 'input', 'output', 'balance'],
);
export const ledgerStatsSchema = objectSchema({ accounts: { type: 'integer', minimum: 0 }, transactions: { type: 'integer', minimum: 0 } }, ['accounts', 'transactions']);
export const balancesQuery = objectSchema({ address: pattern('Address') });
export const dryRunQuery = objectSchema({ dryRun: booleanSchema({ description: 'Run every check and roll back.' }) });
export const revertQuery = objectSchema({
  force: booleanSchema({ description: 'Allow the revert to take accounts below zero.' }),
  atEffectiveDate: booleanSchema({ description: 'Give the revert the original transaction\'s timestamp.' }),
});

/** Splits `metadata[k]=v` query members out of validated list filters. */
export function metadataFilters<F extends MetadataFilters>(filters: F): { rest: Omit<F, keyof MetadataFilters>; metadata: Record<string, string> } {
  const rest: Record<string, unknown> = {};
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(filters)) {
    const match = /^metadata\[(.+)\]$/.exec(key);
    if (match) metadata[match[1]] = String(value);
    else rest[key] = value;
  }
  // What the pattern did not match are F's own members.
  return { rest: rest as Omit<F, keyof MetadataFilters>, metadata };
}
