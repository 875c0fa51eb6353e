import { CAPABILITIES, FETCH_KINDS } from '../../areas/payments';
import { ACCOUNT_TYPES, ASSET_PATTERN, PAYMENT_INITIATION_STATUSES, PAYMENT_INITIATION_TYPES } from '../../areas/payments';
import { QUERY_FIELDS } from '../../areas/payments';
import { SORT_FIELDS } from '../../areas/payments';
import type { JsonSchema } from '../routing';
import {
  anyObjectSchema,
  arraySchema,
  bigIntegerSchema,
  booleanSchema,
  dateTimeSchema,
  ignoredParam,
  listQuerySchema,
  mapSchema,
  member,
  metadataSchema,
  objectSchema,
  stringSchema,
} from './common';

export const str = stringSchema();
const uuid = stringSchema({ format: 'uuid' });
export const shortText = (max = 1000) => stringSchema({ minLength: 1, maxLength: max });
export const anyObject: JsonSchema = { type: 'object', description: 'Provider data, as received.' };
const positiveAmount = { ...bigIntegerSchema('Amount in minor units of the asset, > 0'), minimum: 1 };

export const idParams = <const N extends string>(name: N) => objectSchema(member(name, shortText(2000)), [name]);

// --- Payments (op 7) ---
export const paymentAdjustmentSchema = objectSchema(
  { reference: str, createdAt: dateTimeSchema, status: str, amount: bigIntegerSchema(), raw: anyObject },
  ['reference', 'createdAt', 'status', 'amount', 'raw'],
);
export const paymentSchema = objectSchema(
  {
    id: str,
    reference: str,
    sourceAccountID: str,
    destinationAccountID: str,
    connectorID: str,
    provider: { type: 'string', description: 'Upper case, e.g. SIMULATED or GENERIC.' },
    type: { type: 'string', enum: ['PAY-IN', 'PAYOUT', 'TRANSFER', 'OTHER'] },
    status: str,
    initialAmount: bigIntegerSchema(),
    amount: bigIntegerSchema(),
    scheme: { type: 'string', description: 'Lower case, e.g. visa, sepa credit, other.' },
    asset: str,
    createdAt: dateTimeSchema,
    raw: anyObject,
    adjustments: { type: 'array', items: paymentAdjustmentSchema },
    metadata: metadataSchema,
  },
  [
    'id',
    'reference',
    'sourceAccountID',
    'destinationAccountID',
    'connectorID',
    'provider',
    'type',
    'status',
    'initialAmount',
    'amount',
    'scheme',
    'asset',
    'createdAt',
    'raw',
    'adjustments',
    'metadata',
  ],
);

export const paymentsListQuery = listQuerySchema({
  sort: arraySchema(stringSchema({ maxLength: 200 }), {
    maxItems: 10,
    description: `\`field:asc|desc\`, repeated or comma-separated; fields: ${SORT_FIELDS.join(', ')}. Default date:desc.`,
  }),
  query: stringSchema({
    maxLength: 10_000,
    description: `JSON filter: $match, $lt, $lte, $gt, $gte, $exists, $in, $and, $or, $not over ${QUERY_FIELDS.join(', ')}.`,
  }),
});
export const metadataBody = { ...metadataSchema, maxProperties: 100 };

// --- Bank accounts (op 8) ---
const relatedAccountSchema = objectSchema({ id: str, accountID: str, connectorID: str, provider: str, createdAt: dateTimeSchema }, [
  'id',
  'accountID',
  'connectorID',
  'provider',
  'createdAt',
]);
export const bankAccountSchema = objectSchema(
  {
    id: uuid,
    name: str,
    createdAt: dateTimeSchema,
    country: str,
    iban: { type: 'string', description: 'Masked: first 4 and last 4 characters kept.' },
    accountNumber: { type: 'string', description: 'Masked: first 2 and last 3 characters kept.' },
    swiftBicCode: str,
    connectorID: str,
    accountID: str,
    provider: str,
    relatedAccounts: { type: 'array', items: relatedAccountSchema },
    metadata: metadataSchema,
  },
  ['id', 'name', 'createdAt', 'relatedAccounts', 'metadata'],
);
export const bankAccountInputSchema = objectSchema(
  {
    name: shortText(),
    iban: stringSchema({ pattern: '^[A-Za-z]{2}[0-9]{2}[A-Za-z0-9 ]{11,36}$' }),
    accountNumber: stringSchema({ pattern: '^[0-9A-Za-z -]{4,34}$' }),
    swiftBicCode: stringSchema({ pattern: '^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$' }),
    country: stringSchema({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' }),
    metadata: metadataBody,
  },
  ['name'],
  { anyOf: [{ required: ['iban'] }, { required: ['accountNumber'] }] },
);
export const forwardInputSchema = objectSchema({ connectorID: shortText(2000) }, ['connectorID']);

// --- Payment service users (ops 3, 4) ---
const contactDetailsSchema = objectSchema({
  email: stringSchema({ format: 'email', maxLength: 320 }),
  phoneNumber: stringSchema({ pattern: '^\\+?[0-9 ().-]{3,30}$' }),
  locale: stringSchema({ pattern: '^[a-z]{2}(-[A-Z]{2})?$' }),
});
const addressSchema = objectSchema({
  streetNumber: shortText(100),
  streetName: shortText(),
  city: shortText(),
  region: shortText(),
  postalCode: shortText(50),
  country: stringSchema({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' }),
});
export const psuInputSchema = objectSchema(
  {
    name: shortText(),
    contactDetails: contactDetailsSchema,
    address: addressSchema,
    bankAccountIDs: arraySchema(uuid, { maxItems: 100 }),
    metadata: metadataBody,
  },
  ['name'],
);
export const psuSchema = objectSchema(
  {
    id: uuid,
    name: str,
    createdAt: dateTimeSchema,
    contactDetails: contactDetailsSchema,
    address: addressSchema,
    bankAccountIDs: { type: 'array', items: uuid },
    metadata: metadataSchema,
  },
  ['id', 'name', 'createdAt', 'bankAccountIDs', 'metadata'],
);

// --- Pools (op 5) ---
export const poolQuerySchema = {
  type: 'object',
  description: "Formance v3 dynamic pool: the accounts filter (as the v3 account list's `query`); the pool holds the INTERNAL accounts it matches.",
} as unknown as ReturnType<typeof anyObjectSchema>;
export const poolInputSchema = objectSchema(
  { name: shortText(), accountIDs: arraySchema(shortText(2000), { maxItems: 1000 }), query: poolQuerySchema },
  ['name'],
  { anyOf: [{ required: ['accountIDs'] }, { required: ['query'] }] },
);
export const poolSchema = objectSchema(
  {
    id: uuid,
    name: str,
    createdAt: dateTimeSchema,
    type: { type: 'string', enum: ['STATIC', 'DYNAMIC'] },
    query: poolQuerySchema,
    poolAccounts: { type: 'array', items: str },
  },
  ['id', 'name', 'createdAt', 'type', 'poolAccounts'],
);
export const poolBalancesSchema = {
  type: 'array',
  items: objectSchema({ asset: str, amount: bigIntegerSchema(), relatedAccounts: { type: 'array', items: str } }, [
    'asset',
    'amount',
    'relatedAccounts',
  ]),
};
export const poolBalancesQuery = objectSchema({
  at: { ...dateTimeSchema, description: 'Balances as last fetched at or before this instant (the history of every fetched balance is kept).' },
});
export const poolQueryBody = objectSchema({ query: poolQuerySchema }, ['query']);

// --- Payment initiations (op 6) ---
export const initiationInputSchema = objectSchema(
  {
    reference: stringSchema({ minLength: 3, maxLength: 1000 }),
    connectorID: shortText(2000),
    type: stringSchema({ enum: [...PAYMENT_INITIATION_TYPES] }),
    amount: positiveAmount,
    asset: stringSchema({ pattern: ASSET_PATTERN, description: 'e.g. EUR/2' }),
    sourceAccountID: shortText(2000),
    destinationAccountID: shortText(2000),
    description: stringSchema({ maxLength: 10_000 }),
    scheduledAt: dateTimeSchema,
    metadata: metadataBody,
  },
  ['reference', 'connectorID', 'type', 'amount', 'asset', 'destinationAccountID'],
);
export const initiationSchema = objectSchema(
  {
    id: str,
    connectorID: str,
    provider: str,
    reference: str,
    createdAt: dateTimeSchema,
    scheduledAt: dateTimeSchema,
    description: str,
    type: { type: 'string', enum: [...PAYMENT_INITIATION_TYPES] },
    amount: bigIntegerSchema(),
    asset: str,
    status: { type: 'string', enum: [...PAYMENT_INITIATION_STATUSES] },
    sourceAccountID: str,
    destinationAccountID: str,
    error: str,
    metadata: metadataSchema,
    attempts: { type: 'integer' },
    adjustments: {
      type: 'array',
      items: objectSchema({ id: str, status: str, createdAt: dateTimeSchema, error: str, metadata: metadataSchema }, [
        'id',
        'status',
        'createdAt',
        'metadata',
      ]),
    },
    relatedPaymentIDs: { type: 'array', items: str },
  },
  ['id', 'connectorID', 'provider', 'reference', 'createdAt', 'description', 'type', 'amount', 'asset', 'status', 'destinationAccountID', 'metadata'],
);
export const initiationAdjustmentSchema = objectSchema(
  {
    id: str,
    status: { type: 'string', enum: [...PAYMENT_INITIATION_STATUSES] },
    createdAt: dateTimeSchema,
    amount: bigIntegerSchema(),
    asset: str,
    error: str,
    metadata: metadataSchema,
  },
  ['id', 'status', 'createdAt', 'amount', 'asset', 'metadata'],
);
export const reverseInputSchema = objectSchema(
  {
    reference: stringSchema({ minLength: 3, maxLength: 1000 }),
    amount: positiveAmount,
    asset: stringSchema({ pattern: ASSET_PATTERN }),
    description: stringSchema({ maxLength: 10_000 }),
    metadata: metadataBody,
  },
  ['reference', 'amount', 'asset', 'description'],
);
export const initiationCreatedSchema = objectSchema(
  { paymentInitiationID: str, taskID: { type: 'string', description: 'Temporal workflow id of the execution' } },
  ['paymentInitiationID'],
);
export const taskSchema = objectSchema({ taskID: { type: 'string', description: 'Temporal workflow id of the execution' } }, ['taskID']);
export const createQuery = objectSchema({
  noValidation: booleanSchema({ description: 'Send to the provider at once, skipping WAITING_FOR_VALIDATION.' }),
});

// --- Connectors ---
const capabilitySchema = stringSchema({ enum: [...CAPABILITIES] });
export const capabilitiesSchema = arraySchema(capabilitySchema);
export const connectorSchema = objectSchema(
  {
    id: str,
    reference: { type: 'string', description: 'The UUID the id encodes.' },
    name: str,
    provider: str,
    createdAt: dateTimeSchema,
    config: { type: 'object', description: 'As getConnectorConfig reads it (secrets redacted).' },
    capabilities: capabilitiesSchema,
    scheduledForDeletion: { type: 'boolean', description: 'Uninstalled (or being uninstalled); its data stays readable.' },
    installed: { type: 'boolean' },
    uninstalledAt: dateTimeSchema,
  },
  ['id', 'reference', 'name', 'provider', 'createdAt', 'config', 'capabilities', 'scheduledForDeletion', 'installed'],
);
const configFieldSchema = objectSchema({ dataType: str, required: { type: 'boolean' }, defaultValue: str }, ['dataType', 'required']);
export const connectorConfigsSchema = mapSchema(mapSchema(configFieldSchema), { description: 'Per plugin, its config fields.' });
export const scheduleSchema = objectSchema(
  {
    id: { type: 'string', description: 'The Temporal schedule id: `connector-<provider>-<name>-<short ref>-<kind>`.' },
    connectorID: str,
    createdAt: dateTimeSchema,
    kind: stringSchema({ enum: [...FETCH_KINDS] }),
    paused: { type: 'boolean' },
    pausedAt: { ...dateTimeSchema, description: 'When paused: the last change of the schedule (Temporal keeps no pause time).' },
    pausedReason: str,
    nextRunAt: dateTimeSchema,
  },
  ['id', 'connectorID', 'createdAt', 'kind', 'paused'],
);
export const scheduleInstanceSchema = objectSchema(
  {
    id: { type: 'string', description: 'The workflow id of the run.' },
    scheduleID: str,
    connectorID: str,
    createdAt: dateTimeSchema,
    updatedAt: dateTimeSchema,
    terminated: { type: 'boolean' },
    terminatedAt: dateTimeSchema,
    error: str,
  },
  ['id', 'scheduleID', 'connectorID', 'createdAt', 'updatedAt', 'terminated'],
);
export const connectorTaskSchema = objectSchema(
  {
    id: { type: 'string', description: 'The workflow id of the operation.' },
    status: stringSchema({ enum: ['PROCESSING', 'SUCCEEDED', 'FAILED'] }),
    connectorID: str,
    createdAt: dateTimeSchema,
    updatedAt: dateTimeSchema,
    createdObjectID: str,
    error: str,
  },
  ['id', 'status', 'createdAt', 'updatedAt'],
);
export const schedulesListQuery = listQuerySchema({
  query: ignoredParam(stringSchema({ maxLength: 10_000, description: "Formance's JSON filter." })),
});
export const connectorsListQuery = schedulesListQuery;
export const scheduleParams = objectSchema({ ...member('connectorID', shortText(2000)), ...member('scheduleID', shortText(300)) }, [
  'connectorID',
  'scheduleID',
]);
export const accountTypeSchema = { type: 'string', enum: [...ACCOUNT_TYPES] };
export const plainListQuery = listQuerySchema();
