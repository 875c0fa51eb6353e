import { ASSET_PATTERN, PAYMENT_SCHEMES, PAYMENT_STATUSES, PAYMENT_TYPES } from '../../areas/payments';
import type { JsonSchema } from '../routing';
import {
  arraySchema,
  bigIntegerSchema,
  booleanSchema,
  dateTimeSchema,
  ignoredParam,
  integerSchema,
  listQuerySchema,
  member,
  metadataSchema,
  objectSchema,
  stringSchema,
} from './common';
import { poolQueryBody, poolQuerySchema } from './payments';

/** Formance's payments v1 shapes (the SDK's `payments.v1`). */
const str = stringSchema();
const text = (max = 1000) => stringSchema({ minLength: 1, maxLength: max });
const anyObject: JsonSchema = { type: 'object' };

export const providerParams = objectSchema(member('connector', text(100)), ['connector']);
export const providerIdParams = objectSchema({ ...member('connector', text(100)), ...member('connectorId', text(2000)) }, [
  'connector',
  'connectorId',
]);
export const providerTaskParams = objectSchema({ ...member('connector', text(100)), ...member('taskId', text(1000)) }, ['connector', 'taskId']);
export const providerIdTaskParams = objectSchema(
  { ...member('connector', text(100)), ...member('connectorId', text(2000)), ...member('taskId', text(1000)) },
  ['connector', 'connectorId', 'taskId'],
);

/** DummyPayConfig and GenericConfig of the v1 SDK; the members a plugin does not use are accepted and ignored. */
export const connectorConfigV1Schema = objectSchema(
  {
    provider: ignoredParam(stringSchema({ maxLength: 100 })),
    name: text(200),
    directory: text(4096),
    endpoint: stringSchema({ pattern: '^https?://', maxLength: 2048 }),
    apiKey: stringSchema({ maxLength: 4096 }),
    pollingPeriod: stringSchema({ maxLength: 20 }),
    filePollingPeriod: stringSchema({ maxLength: 20 }),
    prefixFileToIngest: ignoredParam(stringSchema({ maxLength: 200 })),
    numberOfAccountsPreGenerated: ignoredParam(integerSchema({ minimum: 0 })),
    numberOfPaymentsPreGenerated: ignoredParam(integerSchema({ minimum: 0 })),
    pageSize: ignoredParam(integerSchema({ minimum: 1 })),
  },
  ['name'],
);

export const connectorV1Schema = objectSchema({ connectorID: str, name: str, provider: str, enabled: booleanSchema() }, [
  'connectorID',
  'name',
  'provider',
  'enabled',
]);
export const taskV1Schema = objectSchema(
  {
    id: str,
    connectorID: str,
    createdAt: dateTimeSchema,
    updatedAt: dateTimeSchema,
    status: stringSchema({ enum: ['ACTIVE', 'TERMINATED', 'FAILED'] }),
    descriptor: objectSchema({ name: str, key: str }, ['name', 'key']),
    state: anyObject,
    error: str,
  },
  ['id', 'connectorID', 'createdAt', 'updatedAt', 'status', 'descriptor'],
);
export const serverInfoV1Schema = objectSchema({ version: str, debug: booleanSchema() }, ['version']);

export const paymentInputV1Schema = objectSchema(
  {
    connectorID: text(2000),
    reference: text(1000),
    createdAt: dateTimeSchema,
    type: stringSchema({ enum: [...PAYMENT_TYPES] }),
    status: stringSchema({ enum: [...PAYMENT_STATUSES] }),
    scheme: stringSchema({ enum: [...PAYMENT_SCHEMES] }),
    asset: stringSchema({ pattern: ASSET_PATTERN }),
    amount: bigIntegerSchema(),
    sourceAccountID: text(2000),
    destinationAccountID: text(2000),
  },
  ['connectorID', 'reference', 'createdAt', 'type', 'status', 'scheme', 'asset', 'amount'],
);

export const accountV1Schema = objectSchema(
  {
    id: str,
    reference: str,
    connectorID: str,
    provider: str,
    createdAt: dateTimeSchema,
    accountName: str,
    defaultAsset: str,
    defaultCurrency: str,
    type: stringSchema({ enum: ['INTERNAL', 'EXTERNAL'] }),
    metadata: metadataSchema,
    raw: anyObject,
    pools: arraySchema(str),
  },
  ['id', 'reference', 'connectorID', 'createdAt', 'accountName', 'defaultAsset', 'defaultCurrency', 'type', 'metadata', 'raw'],
);
export const accountInputV1Schema = objectSchema(
  {
    connectorID: text(2000),
    reference: text(1000),
    createdAt: dateTimeSchema,
    type: stringSchema({ enum: ['INTERNAL', 'EXTERNAL'] }),
    accountName: stringSchema({ maxLength: 1000 }),
    defaultAsset: stringSchema({ pattern: ASSET_PATTERN }),
    metadata: { ...metadataSchema, type: ['object', 'null'] },
  },
  ['connectorID', 'reference', 'createdAt', 'type'],
);
export const accountsListV1Query = listQuerySchema({
  query: ignoredParam(stringSchema({ maxLength: 10_000 })),
  sort: ignoredParam(arraySchema(stringSchema({ maxLength: 200 }), { maxItems: 10 })),
});
export const balanceV1Schema = objectSchema(
  {
    accountId: str,
    asset: str,
    currency: str,
    balance: { type: 'integer', format: 'bigint', description: 'Integer of any size, possibly negative.' },
    createdAt: dateTimeSchema,
    lastUpdatedAt: dateTimeSchema,
  },
  ['accountId', 'asset', 'currency', 'balance', 'createdAt', 'lastUpdatedAt'],
);
export const balancesV1Query = listQuerySchema({
  asset: stringSchema({ pattern: ASSET_PATTERN }),
  from: ignoredParam(dateTimeSchema),
  to: ignoredParam(dateTimeSchema),
  limit: ignoredParam(integerSchema({ minimum: 1 })),
  sort: ignoredParam(arraySchema(stringSchema({ maxLength: 200 }), { maxItems: 10 })),
});

export const bankAccountInputV1Schema = objectSchema(
  {
    name: text(),
    country: stringSchema({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' }),
    iban: stringSchema({ pattern: '^[A-Za-z]{2}[0-9]{2}[A-Za-z0-9 ]{11,36}$' }),
    accountNumber: stringSchema({ pattern: '^[0-9A-Za-z -]{4,34}$' }),
    swiftBicCode: stringSchema({ pattern: '^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$' }),
    connectorID: text(2000),
    metadata: { ...metadataSchema, type: ['object', 'null'], maxProperties: 100 },
  },
  ['name', 'country'],
  { anyOf: [{ required: ['iban'] }, { required: ['accountNumber'] }] },
);
export const bankAccountMetadataV1Schema = objectSchema({ metadata: { ...metadataSchema, type: ['object', 'null'], maxProperties: 100 } }, [
  'metadata',
]);
export const sortedListV1Query = listQuerySchema({ sort: ignoredParam(arraySchema(stringSchema({ maxLength: 200 }), { maxItems: 10 })) });

export const poolV1Schema = objectSchema(
  {
    id: str,
    name: str,
    accounts: arraySchema(str),
    type: stringSchema({ enum: ['STATIC', 'DYNAMIC'] }),
    query: poolQuerySchema,
    createdAt: dateTimeSchema,
  },
  ['id', 'name', 'accounts', 'type'],
);
export const poolInputV1Schema = objectSchema(
  {
    name: text(),
    accountIDs: arraySchema(text(2000), { maxItems: 1000 }),
    query: poolQuerySchema,
  },
  ['name'],
);
export const poolsListV1Query = accountsListV1Query;
export const poolAccountV1Schema = objectSchema({ accountID: text(2000) }, ['accountID']);
export const poolQueryV1Schema = poolQueryBody;
export const poolBalancesV1Query = objectSchema({ at: ignoredParam(dateTimeSchema) });
export const poolBalanceV1Schema = objectSchema({ asset: str, amount: { type: 'integer', format: 'bigint' }, relatedAccounts: arraySchema(str) }, [
  'asset',
  'amount',
]);

const positiveAmount = { ...bigIntegerSchema('Amount in minor units of the asset, > 0'), minimum: 1 };
export const transferInitiationInputV1Schema = objectSchema(
  {
    reference: stringSchema({ minLength: 3, maxLength: 1000 }),
    connectorID: text(2000),
    type: stringSchema({ enum: ['TRANSFER', 'PAYOUT'] }),
    amount: positiveAmount,
    asset: stringSchema({ pattern: ASSET_PATTERN }),
    sourceAccountID: stringSchema({ maxLength: 2000 }),
    destinationAccountID: text(2000),
    description: stringSchema({ maxLength: 10_000 }),
    scheduledAt: dateTimeSchema,
    validated: booleanSchema(),
    metadata: { ...metadataSchema, type: ['object', 'null'], maxProperties: 100 },
    provider: ignoredParam(
      stringSchema({ maxLength: 100, description: "Older v1 clients name the provider; the connector is connectorID or the destination account's." }),
    ),
  },
  ['reference', 'type', 'amount', 'asset', 'sourceAccountID', 'destinationAccountID', 'description', 'scheduledAt', 'validated'],
);
const transferStatusSchema = stringSchema({
  enum: [
    'WAITING_FOR_VALIDATION',
    'VALIDATED',
    'PROCESSING',
    'PROCESSED',
    'FAILED',
    'REJECTED',
    'REVERSE_PROCESSING',
    'REVERSE_FAILED',
    'PARTIALLY_REVERSED',
    'REVERSED',
  ],
});
export const transferInitiationV1Schema = objectSchema(
  {
    id: str,
    reference: str,
    connectorID: str,
    provider: str,
    createdAt: dateTimeSchema,
    scheduledAt: dateTimeSchema,
    description: str,
    type: stringSchema({ enum: ['TRANSFER', 'PAYOUT'] }),
    amount: bigIntegerSchema(),
    initialAmount: bigIntegerSchema(),
    asset: str,
    status: transferStatusSchema,
    sourceAccountID: str,
    destinationAccountID: str,
    error: str,
    metadata: metadataSchema,
    relatedAdjustments: arraySchema(
      objectSchema({ adjustmentID: str, createdAt: dateTimeSchema, status: transferStatusSchema, error: str, metadata: metadataSchema }, [
        'adjustmentID',
        'createdAt',
        'status',
      ]),
    ),
    relatedPayments: arraySchema(objectSchema({ paymentID: str, createdAt: dateTimeSchema, status: str }, ['paymentID', 'createdAt', 'status'])),
  },
  [
    'id',
    'reference',
    'connectorID',
    'provider',
    'createdAt',
    'scheduledAt',
    'description',
    'type',
    'amount',
    'initialAmount',
    'asset',
    'status',
    'sourceAccountID',
    'destinationAccountID',
    'metadata',
  ],
);
export const transferStatusInputV1Schema = objectSchema({ status: stringSchema({ enum: ['VALIDATED', 'REJECTED'] }) }, ['status']);
export const reverseInputV1Schema = objectSchema(
  {
    reference: text(1000),
    description: stringSchema({ maxLength: 10_000 }),
    amount: positiveAmount,
    asset: stringSchema({ pattern: ASSET_PATTERN }),
    metadata: { ...metadataSchema, type: ['object', 'null'] },
  },
  ['reference', 'description', 'amount', 'asset', 'metadata'],
);
export const connectorTransferV1Schema = objectSchema(
  {
    amount: positiveAmount,
    asset: stringSchema({ pattern: ASSET_PATTERN }),
    destination: text(2000),
    source: text(2000),
  },
  ['amount', 'asset', 'destination'],
);
