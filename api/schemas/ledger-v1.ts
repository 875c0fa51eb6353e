import {
  anyObjectSchema,
  arraySchema,
  bigIntegerSchema,
  booleanSchema,
  dateTimeSchema,
  ignoredParam,
  int64IdSchema,
  listQuerySchema,
  mapSchema,
  metadataSchema,
  objectSchema,
  stringSchema,
  withMetadataFilters,
  type ExactInteger,
} from './common';
import { accountFilters, addressSchema, postingSchema, stringMap, transactionFilters, v1TransactionSchema, volumeSchema } from './ledger';

/** Formance v1's ledger shapes and parameters (docs/ledger.md, "Formance v1 ledger API"). */
// A signed exact integer: bigIntegerSchema without its lower bound (the validator then bounds it at -(2^53 - 1)).
const signedInteger = (description: string): ExactInteger => ({ ...bigIntegerSchema(description), minimum: undefined });
const afterTxid = int64IdSchema('Only transactions with a lower txid (the list is newest first).');

export const listTransactionsV1Query = withMetadataFilters(listQuerySchema({ ...transactionFilters, after: afterTxid }));
export const listAccountsV1Query = withMetadataFilters(
  listQuerySchema({
    ...accountFilters,
    after: stringSchema({ maxLength: 1024, description: 'Only addresses after this one (the list is by address ascending).' }),
    balance: signedInteger('Only accounts with an asset whose balance compares with this value (balanceOperator, default gte).'),
    balanceOperator: stringSchema({ enum: ['e', 'ne', 'gt', 'gte', 'lt', 'lte'] as const, description: 'How `balance` compares; default gte.' }),
  }),
);
export const balancesV1Query = {
  ...listQuerySchema({ ...accountFilters, after: stringSchema({ maxLength: 1024, description: 'Only addresses after this one.' }) }),
  additionalProperties: false,
};
export const aggregateBalancesV1Query = objectSchema({
  ...accountFilters,
  useInsertionDate: ignoredParam(booleanSchema({ description: 'Balances here are always the current ones.' })),
});
export const listLogsV1Query = {
  ...listQuerySchema({
    after: int64IdSchema('Only logs with a lower id (the list is newest first).'),
    startTime: { ...dateTimeSchema, description: 'Only logs dated at or after startTime.' },
    endTime: { ...dateTimeSchema, description: 'Only logs dated before endTime.' },
  }),
  additionalProperties: false,
};
export const previewQuery = objectSchema({ preview: booleanSchema({ description: 'Dry run: every check, then rolled back.' }) });
export const revertV1Query = objectSchema({
  disableChecks: booleanSchema({ description: 'Allow the revert to take accounts below zero and skip the mapping.' }),
});

const transactionDataSchema = objectSchema(
  {
    postings: arraySchema(postingSchema, { minItems: 1, maxItems: 1000 }),
    reference: stringSchema({ maxLength: 1000 }),
    metadata: metadataSchema,
    timestamp: dateTimeSchema,
  },
  ['postings'],
);
export const createTransactionsV1BodySchema = objectSchema({ transactions: arraySchema(transactionDataSchema, { maxItems: 1000 }) }, [
  'transactions',
]);

/** `plain` may be empty: v1 answers that (NO_SCRIPT) in its 200 body like every other script error. */
export const scriptV1BodySchema = objectSchema(
  { plain: stringSchema({ maxLength: 100_000 }), vars: anyObjectSchema(), reference: stringSchema({ maxLength: 1000 }), metadata: metadataSchema },
  ['plain'],
);

export const contractSchema = objectSchema(
  {
    id: stringSchema({ maxLength: 256 }),
    account: stringSchema({ maxLength: 1024, description: 'Addresses covered; `*` matches any characters; absent = every account.' }),
    expr: anyObjectSchema({ description: 'v1 expression, e.g. `{"$gte": ["$balance", -100]}`; `{}` always holds.' }),
  },
  ['expr'],
);
export const mappingSchema = objectSchema({ contracts: arraySchema(contractSchema, { maxItems: 1000 }) }, ['contracts']);

export const v1AccountSchema = objectSchema({ address: addressSchema, metadata: stringMap }, ['address', 'metadata']);
const balancesSchema = mapSchema(signedInteger('Balance'));
export const v1AccountWithVolumesSchema = objectSchema(
  { address: addressSchema, metadata: stringMap, volumes: mapSchema(volumeSchema), balances: balancesSchema },
  ['address', 'metadata', 'volumes', 'balances'],
);
export const v1BalancesItemSchema = mapSchema(balancesSchema, { description: '`{address: {asset: balance}}`, one account per item.' });
export const v1LogSchema = objectSchema(
  {
    id: int64IdSchema('Log id (the v2 log id; DELETE_METADATA logs are not listed).'),
    type: stringSchema({ enum: ['NEW_TRANSACTION', 'SET_METADATA'] as const }),
    data: anyObjectSchema({
      description: 'NEW_TRANSACTION: `{txid, postings, reference, metadata, timestamp}`; SET_METADATA: `{targetType, targetId, metadata}`.',
    }),
    date: dateTimeSchema,
    hash: stringSchema({ description: 'The v2 chain hash (base64); "" until the hasher reaches the log.' }),
  },
  ['id', 'type', 'data', 'date', 'hash'],
);
export const configInfoSchema = objectSchema(
  {
    server: stringSchema(),
    version: stringSchema(),
    config: objectSchema({ storage: objectSchema({ driver: stringSchema(), ledgers: arraySchema(stringSchema()) }, ['driver', 'ledgers']) }, [
      'storage',
    ]),
  },
  ['server', 'version', 'config'],
);
export const ledgerInfoSchema = objectSchema(
  {
    name: stringSchema(),
    storage: objectSchema({
      migrations: arraySchema(
        objectSchema(
          { version: stringSchema(), name: stringSchema(), date: dateTimeSchema, state: stringSchema({ enum: ['DONE', 'TO DO'] as const }) },
          ['version', 'name', 'state'],
        ),
      ),
    }),
  },
  ['name', 'storage'],
);
export const scriptResponseSchema = objectSchema({
  transaction: v1TransactionSchema,
  errorCode: stringSchema({ description: 'A v1 error code, when the script failed (the answer is still 200, as v1).' }),
  errorMessage: stringSchema(),
});
