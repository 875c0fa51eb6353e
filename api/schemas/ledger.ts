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
  mapSchema,
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
export const txParams = <N extends 'id' | 'txid'>(name: N) =>
  objectSchema({ ledger: ledgerName(), ...member(name, transactionIdSchema) }, ['ledger', name]);
export const accountParams = objectSchema({ ledger: ledgerName(), address: addressSchema }, ['ledger', 'address']);

/** Op 10's item: the spec's Ledger, with `deletedAt` when the list includes deleted ledgers. */
export const ledgerListItemSchema = objectSchema(
  { name: { type: 'string' }, addedAt: dateTimeSchema, bucket: { type: 'string' }, metadata: stringMap, deletedAt: dateTimeSchema },
  ['name', 'addedAt', 'bucket', 'metadata'],
);

export const ledgerSchema = objectSchema(
  {
    id: { type: 'integer' },
    name: { type: 'string' },
    addedAt: dateTimeSchema,
    bucket: { type: 'string' },
    metadata: stringMap,
    features: { ...stringMap, description: 'The effective features: what this platform does for the ledger (see docs/ledger.md).' },
    deletedAt: { ...dateTimeSchema, description: "Set while the ledger's bucket is deleted." },
  },
  ['id', 'name', 'addedAt', 'bucket', 'metadata', 'features'],
);

export const postingSchema = objectSchema(
  {
    source: addressSchema,
    destination: addressSchema,
    amount: bigIntegerSchema("Amount in the asset's smallest unit, any size."),
    asset: assetSchema,
  },
  ['source', 'destination', 'amount', 'asset'],
);

export const volumeSchema = objectSchema(
  { input: amount('Sum received'), output: amount('Sum sent'), balance: amount('input - output; may be negative') },
  ['input', 'output', 'balance'],
);
export const volumesSchema: JsonSchema = { type: 'object', additionalProperties: volumeSchema, description: 'Volumes by asset.' };
export const volumesByAccountSchema: JsonSchema = {
  type: 'object',
  additionalProperties: volumesSchema,
  description: 'Volumes by account, then asset.',
};

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

export const accountSchema = objectSchema({ address: addressSchema, metadata: stringMap, volumes: volumesSchema, effectiveVolumes: volumesSchema }, [
  'address',
  'metadata',
  'volumes',
  'effectiveVolumes',
]);

export const bucketSchema = stringSchema({ pattern: '^[0-9a-zA-Z_-]{1,63}$' });
export const createLedgerBodySchema = objectSchema({
  bucket: bucketSchema,
  metadata: metadataSchema,
  features: mapSchema(stringSchema(), {
    description:
      "Formance's features; only the values true of this platform are accepted. Numscript's experimental flags (`experimental-oneof`, ...) are features too, ON or OFF (docs/ledger.md).",
  }),
});
export const bucketParams = objectSchema({ bucket: bucketSchema }, ['bucket']);

/** A v1 transaction body (postings or a script's text). */
export const createTransactionBodySchema = objectSchema({
  postings: arraySchema(postingSchema, { maxItems: 1000 }),
  script: objectSchema({ plain: stringSchema({ minLength: 1, maxLength: 100_000 }), vars: anyObjectSchema() }, ['plain']),
  reference: stringSchema({ maxLength: 1000 }),
  metadata: metadataSchema,
  timestamp: dateTimeSchema,
});

/** Formance's V2PostTransaction: v1's body, a script that may name a template, `force`, `accountMetadata`, `runtime`. */
export const v2PostTransactionSchema = objectSchema({
  postings: arraySchema(postingSchema, { maxItems: 1000 }),
  script: objectSchema({
    plain: stringSchema({ minLength: 1, maxLength: 100_000 }),
    template: stringSchema({
      minLength: 1,
      maxLength: 255,
      description: 'A transaction template of the schema version named by `schemaVersion`, instead of `plain`.',
    }),
    vars: anyObjectSchema(),
  }),
  reference: stringSchema({ maxLength: 1000 }),
  metadata: metadataSchema,
  timestamp: dateTimeSchema,
  force: booleanSchema({ description: 'As the `force` query parameter.' }),
  accountMetadata: mapSchema(metadataSchema, {
    description: "Metadata set on accounts with the transaction (each account gets a SET_METADATA log after the transaction's).",
  }),
  runtime: ignoredParam(stringSchema({ enum: ['experimental-interpreter', 'machine'], description: 'There is one Numscript interpreter.' })),
});

export const revertBodySchema = objectSchema({ metadata: metadataSchema });

export const schemaVersionParam = stringSchema({
  minLength: 1,
  maxLength: 64,
  description: 'A schema version of the ledger: the write is checked against it (404 when it does not exist).',
});
const pit = ignoredParam({ ...dateTimeSchema, description: 'Point-in-time reads are not supported: the current state is read.' });
const expand = ignoredParam(stringSchema({ description: 'Volumes are always included.' }));
/** Formance's JSON filter (`query`, sent JSON-encoded in the query string by its SDK); see docs/ledger.md for the fields of each list. */
export const queryFilterParam = stringSchema({
  maxLength: 10_000,
  description: 'JSON filter: $match, $like, $lt, $lte, $gt, $gte, $exists, $in, $and, $or, $not.',
});
const sortParam = ignoredParam(stringSchema({ description: 'Lists keep their one order.' }));

const pattern = (what: string) =>
  stringSchema({ maxLength: 1024, description: `${what}: an address, or a pattern (\`users:\` one level, \`users:...\` any depth).` });

export const listLedgersQuery = {
  ...listQuerySchema({
    includeDeleted: booleanSchema({ description: 'Also list the ledgers of deleted buckets.' }),
    sort: ignoredParam(stringSchema({ description: 'The order is always oldest first.' })),
    query: ignoredParam(stringSchema({ maxLength: 10_000, description: 'Ledgers are not filtered.' })),
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
/** Members Formance defines for its transaction lists; `query` filters, the others are accepted and ignored. */
const transactionListExtras = {
  query: queryFilterParam,
  pit,
  expand,
  sort: sortParam,
  order: ignoredParam(stringSchema({ enum: ['effective'], description: 'The list is always by id.' })),
  reverse: ignoredParam(booleanSchema({ description: 'The list is always newest first.' })),
};
const accountListExtras = { query: queryFilterParam, pit, expand, sort: sortParam };
export const listTransactionsQuery = withMetadataFilters(listQuerySchema({ ...transactionFilters, ...transactionListExtras }));
export const listAccountsQuery = withMetadataFilters(listQuerySchema({ ...accountFilters, ...accountListExtras }));
/** HEAD counts take the filters of their list, without its page. */
export const countTransactionsQuery = withMetadataFilters(objectSchema({ ...transactionFilters, query: queryFilterParam, pit }));
export const countAccountsQuery = withMetadataFilters(objectSchema({ ...accountFilters, query: queryFilterParam, pit }));
export const listVolumesQuery = {
  ...listQuerySchema({
    ...accountFilters,
    startTime: { ...dateTimeSchema, description: 'Only transactions at or after startTime (then volumes are summed from postings).' },
    endTime: { ...dateTimeSchema, description: 'Only transactions before endTime (then volumes are summed from postings).' },
    insertionDate: booleanSchema({ description: 'startTime and endTime bound the insertion date instead of the timestamp.' }),
    groupBy: integerSchema({
      minimum: 0,
      maximum: 64,
      description: 'Group addresses by their first N segments; 0 (what fctl sends by default) does not group.',
    }),
    query: queryFilterParam,
    sort: sortParam,
  }),
  additionalProperties: false,
};
export const volumesWithBalanceSchema = objectSchema(
  {
    account: { type: 'string' },
    asset: assetSchema,
    input: amount('Sum received'),
    output: amount('Sum sent'),
    balance: amount('input - output; may be negative'),
  },
  ['account', 'asset', 'input', 'output', 'balance'],
);
export const ledgerStatsSchema = objectSchema({ accounts: { type: 'integer', minimum: 0 }, transactions: { type: 'integer', minimum: 0 } }, [
  'accounts',
  'transactions',
]);
export const balancesQuery = objectSchema({
  address: pattern('Address'),
  query: queryFilterParam,
  pit: {
    ...dateTimeSchema,
    description: 'Balances as they were at this instant, replayed from the postings of the transactions dated at or before it (docs/ledger.md).',
  },
  useInsertionDate: booleanSchema({ description: 'With pit: date transactions by insertion rather than by effective timestamp.' }),
});
const dryRun = booleanSchema({ description: 'Run every check and roll back.' });
export const createTransactionQuery = objectSchema({
  dryRun,
  force: booleanSchema({ description: 'Plain postings may take non-world accounts below zero.' }),
  schemaVersion: schemaVersionParam,
});
export const metadataWriteQuery = objectSchema({ dryRun, schemaVersion: schemaVersionParam });
export const revertQuery = objectSchema({
  force: booleanSchema({ description: 'Allow the revert to take accounts below zero.' }),
  atEffectiveDate: booleanSchema({ description: "Give the revert the original transaction's timestamp." }),
  dryRun,
  schemaVersion: schemaVersionParam,
});
export const getTransactionQuery = objectSchema({ expand, pit });
export const getAccountQuery = objectSchema({ expand, pit });

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

/** Formance's V2ConfigInfo (`GET /api/ledger/_/info`). */
export const v2ConfigInfoSchema = objectSchema(
  { server: stringSchema(), version: stringSchema(), experimentalFeatures: arraySchema(stringSchema()) },
  ['server', 'version'],
);
