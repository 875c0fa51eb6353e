import { BALANCE_NAME_PATTERN, WALLET_NAME_MAX_LENGTH } from '../../lib/grammar';
import type { JsonSchema } from '../routing';
import { bigIntegerSchema, dateTimeSchema, listQuerySchema, metadataSchema, objectSchema } from './common';
import { addressSchema, assetSchema, postingSchema, volumesByAccountSchema } from './ledger';

const stringMap: JsonSchema = { type: 'object', additionalProperties: { type: 'string' } };
const uuid: JsonSchema = { type: 'string', format: 'uuid' };
const idParam: JsonSchema = { type: 'string', minLength: 1, maxLength: 200 };
const balanceName: JsonSchema = { type: 'string', pattern: BALANCE_NAME_PATTERN };
const assetsSchema: JsonSchema = { type: 'object', additionalProperties: { ...bigIntegerSchema('Balance'), minimum: undefined } };

export const walletParams = objectSchema({ id: idParam }, ['id']);
export const balanceParams = objectSchema({ id: idParam, balanceName }, ['id', 'balanceName']);
export const holdParams = objectSchema({ holdID: idParam }, ['holdID']);

export const subjectSchema: JsonSchema = {
  oneOf: [
    objectSchema({ type: { const: 'ACCOUNT' }, identifier: addressSchema, ledger: { type: 'string' } }, ['type', 'identifier']),
    objectSchema({ type: { const: 'WALLET' }, identifier: uuid, balance: balanceName }, ['type', 'identifier']),
  ],
};
const monetarySchema = objectSchema({ asset: assetSchema, amount: bigIntegerSchema('Amount in the asset\'s smallest unit') }, ['asset', 'amount']);

export const walletSummarySchema = objectSchema(
  { id: uuid, name: { type: 'string' }, metadata: stringMap, createdAt: dateTimeSchema, ledger: { type: 'string' } },
  ['id', 'name', 'metadata', 'createdAt', 'ledger'],
);
export const walletSchema = objectSchema(
  { ...(walletSummarySchema.properties as Record<string, JsonSchema>), balances: { type: 'object', additionalProperties: objectSchema({ assets: assetsSchema }, ['assets']) } },
  ['id', 'name', 'metadata', 'createdAt', 'ledger', 'balances'],
);
export const balanceSchema = objectSchema(
  { name: { type: 'string' }, expiresAt: { type: ['string', 'null'], format: 'date-time' }, priority: { type: 'integer' } },
  ['name', 'expiresAt', 'priority'],
);
export const balanceWithAssetsSchema = objectSchema({ ...(balanceSchema.properties as Record<string, JsonSchema>), assets: assetsSchema }, ['name', 'expiresAt', 'priority', 'assets']);
export const holdSchema = objectSchema(
  { id: uuid, walletID: uuid, asset: { type: 'string' }, metadata: stringMap, description: { type: 'string' }, destination: subjectSchema },
  ['id', 'walletID', 'asset', 'metadata', 'description', 'destination'],
);
export const holdDetailSchema = objectSchema(
  {
    ...(holdSchema.properties as Record<string, JsonSchema>),
    asset: assetSchema,
    originalAmount: bigIntegerSchema('Amount held at first'),
    remaining: bigIntegerSchema('Amount still held'),
    closed: { type: 'boolean' },
  },
  ['id', 'walletID', 'metadata', 'description', 'destination', 'asset', 'originalAmount', 'remaining', 'closed'],
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

export const createWalletBody = objectSchema({ name: { type: 'string', minLength: 1, maxLength: WALLET_NAME_MAX_LENGTH }, metadata: metadataSchema }, ['name']);
export const patchWalletBody = objectSchema({ metadata: metadataSchema }, ['metadata']);
export const createBalanceBody = objectSchema({ name: balanceName, expiresAt: dateTimeSchema, priority: { type: 'integer', minimum: 0, maximum: 1_000_000 } }, ['name']);
export const creditBody = objectSchema(
  { amount: monetarySchema, sources: { type: 'array', items: subjectSchema, maxItems: 100 }, balance: balanceName, metadata: metadataSchema, reference: { type: 'string', maxLength: 1000 }, timestamp: dateTimeSchema },
  ['amount'],
);
export const debitBody = objectSchema(
  {
    amount: monetarySchema,
    pending: { type: 'boolean' },
    metadata: metadataSchema,
    description: { type: 'string', maxLength: 2000 },
    destination: subjectSchema,
    balances: { type: 'array', items: { type: 'string', pattern: '^(\\*|[a-zA-Z0-9_-]{1,64})$' }, maxItems: 100 },
    timestamp: dateTimeSchema,
  },
  ['amount'],
);
export const confirmBody = objectSchema({ amount: bigIntegerSchema('Amount to confirm; absent or 0 confirms all that remains'), final: { type: 'boolean' } });

const metadataFilter = { patternProperties: { '^metadata\\[.+\\]$': { type: 'string' } }, additionalProperties: false };
// `expand` is Formance's (it names what to embed); accepted and unused: list items never carry balances here.
export const listWalletsQuery: JsonSchema = { ...listQuerySchema({ name: { type: 'string' }, expand: { type: 'string', description: 'Accepted for Formance\'s clients; ignored.' } }), ...metadataFilter };
export const listHoldsQuery: JsonSchema = { ...listQuerySchema({ walletID: idParam }), ...metadataFilter };
export const listWalletTransactionsQuery: JsonSchema = { ...listQuerySchema({ walletID: { ...idParam, description: 'Only this wallet\'s transactions.' } }), additionalProperties: false };

const fundsSchema: JsonSchema = { type: 'object', additionalProperties: bigIntegerSchema() };
export const walletFundsSummarySchema = objectSchema(
  { balances: { type: 'array', items: balanceWithAssetsSchema }, availableFunds: fundsSchema, expiredFunds: fundsSchema, expirableFunds: fundsSchema, holdFunds: fundsSchema },
  ['balances', 'availableFunds', 'expiredFunds', 'expirableFunds', 'holdFunds'],
);
