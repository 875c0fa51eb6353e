import { BALANCE_NAME_PATTERN, WALLET_NAME_MAX_LENGTH } from '../../lib/grammar';
import type { JsonSchema } from '../routing';
import {
  arraySchema,
  bigIntegerSchema,
  booleanSchema,
  constSchema,
  dateTimeSchema,
  extendObject,
  ignoredParam,
  integerSchema,
  listQuerySchema,
  mapSchema,
  metadataSchema,
  objectSchema,
  oneOfSchema,
  stringSchema,
  withMetadataFilters,
} from './common';
import { addressSchema, assetSchema, postingSchema, volumesByAccountSchema } from './ledger';

const stringMap: JsonSchema = { type: 'object', additionalProperties: { type: 'string' } };
const uuid = stringSchema({ format: 'uuid' });
const idParam = stringSchema({ minLength: 1, maxLength: 200 });
const balanceName = stringSchema({ pattern: BALANCE_NAME_PATTERN });
/** A balance named in a movement: `""` is no name, i.e. `main` (fctl sends `"balance": ""` when none is given). */
const movementBalanceName = stringSchema({ pattern: '^([a-zA-Z0-9_-]{1,64})?$', description: 'A balance name; empty or absent: `main`.' });
const assetsSchema: JsonSchema = { type: 'object', additionalProperties: { ...bigIntegerSchema('Balance'), minimum: undefined } };

export const walletParams = objectSchema({ id: idParam }, ['id']);
export const balanceParams = objectSchema({ id: idParam, balanceName }, ['id', 'balanceName']);
export const holdParams = objectSchema({ holdID: idParam }, ['holdID']);

export const subjectSchema = oneOfSchema([
  objectSchema({ type: constSchema('ACCOUNT'), identifier: addressSchema, ledger: stringSchema() }, ['type', 'identifier']),
  objectSchema({ type: constSchema('WALLET'), identifier: uuid, balance: movementBalanceName }, ['type', 'identifier']),
]);
const monetarySchema = objectSchema({ asset: assetSchema, amount: bigIntegerSchema("Amount in the asset's smallest unit") }, ['asset', 'amount']);

export const walletSummarySchema = objectSchema(
  { id: uuid, name: { type: 'string' }, metadata: stringMap, createdAt: dateTimeSchema, ledger: { type: 'string' } },
  ['id', 'name', 'metadata', 'createdAt', 'ledger'],
);
export const walletSchema = extendObject(
  walletSummarySchema,
  { balances: { type: 'object', additionalProperties: objectSchema({ assets: assetsSchema }, ['assets']) } },
  ['balances'],
);
export const balanceSchema = objectSchema(
  { name: { type: 'string' }, expiresAt: { type: ['string', 'null'], format: 'date-time' }, priority: { type: 'integer' } },
  ['name', 'expiresAt', 'priority'],
);
export const balanceWithAssetsSchema = extendObject(balanceSchema, { assets: assetsSchema }, ['assets']);
export const holdSchema = objectSchema(
  { id: uuid, walletID: uuid, asset: assetSchema, metadata: stringMap, description: { type: 'string' }, destination: subjectSchema },
  ['id', 'walletID', 'asset', 'metadata', 'description', 'destination'],
);
export const holdDetailSchema = extendObject(
  holdSchema,
  { originalAmount: bigIntegerSchema('Amount held at first'), remaining: bigIntegerSchema('Amount still held'), closed: { type: 'boolean' } },
  ['originalAmount', 'remaining', 'closed'],
);
export const walletTransactionSchema = objectSchema(
  {
    ledger: { type: 'string' },
    id: { type: 'integer', minimum: 0 },
    timestamp: dateTimeSchema,
    postings: { type: 'array', items: postingSchema },
    reference: { type: 'string' },
    metadata: stringMap,
    preCommitVolumes: volumesByAccountSchema,
    postCommitVolumes: volumesByAccountSchema,
  },
  ['ledger', 'id', 'timestamp', 'postings', 'reference', 'metadata', 'preCommitVolumes', 'postCommitVolumes'],
);

export const createWalletBody = objectSchema({ name: stringSchema({ minLength: 1, maxLength: WALLET_NAME_MAX_LENGTH }), metadata: metadataSchema }, [
  'name',
]);
export const patchWalletBody = objectSchema({ metadata: metadataSchema }, ['metadata']);
export const createBalanceBody = objectSchema(
  { name: balanceName, expiresAt: dateTimeSchema, priority: integerSchema({ minimum: 0, maximum: 1_000_000 }) },
  ['name'],
);
export const creditBody = objectSchema(
  {
    amount: monetarySchema,
    sources: arraySchema(subjectSchema, { maxItems: 100 }),
    balance: movementBalanceName,
    metadata: metadataSchema,
    reference: stringSchema({ maxLength: 1000 }),
    timestamp: dateTimeSchema,
  },
  ['amount'],
);
export const debitBody = objectSchema(
  {
    amount: monetarySchema,
    pending: booleanSchema(),
    metadata: metadataSchema,
    description: stringSchema({ maxLength: 2000 }),
    destination: subjectSchema,
    // `""` entries are no name (fctl sends `[""]` when no balance is given); none left: `main`.
    balances: arraySchema(stringSchema({ pattern: '^(\\*|[a-zA-Z0-9_-]{1,64})?$' }), { maxItems: 100 }),
    timestamp: dateTimeSchema,
  },
  ['amount'],
);
export const confirmBody = objectSchema({
  amount: bigIntegerSchema('Amount to confirm; absent or 0 confirms all that remains'),
  final: booleanSchema(),
});

// `expand` is Formance's (it names what to embed); accepted and unused: list items never carry balances here.
export const listWalletsQuery = withMetadataFilters(listQuerySchema({ name: stringSchema(), expand: ignoredParam(stringSchema()) }));
export const listHoldsQuery = withMetadataFilters(listQuerySchema({ walletID: idParam }));
export const listWalletTransactionsQuery = {
  ...listQuerySchema({ walletID: { ...idParam, description: "Only this wallet's transactions." } }),
  additionalProperties: false,
};

const fundsSchema = mapSchema(bigIntegerSchema());
export const walletFundsSummarySchema = objectSchema(
  {
    balances: arraySchema(balanceWithAssetsSchema),
    availableFunds: fundsSchema,
    expiredFunds: fundsSchema,
    expirableFunds: fundsSchema,
    holdFunds: fundsSchema,
  },
  ['balances', 'availableFunds', 'expiredFunds', 'expirableFunds', 'holdFunds'],
);
