import {
  ACCOUNT_TYPES,
  ASSET_PATTERN,
  CONVERSION_STATUSES,
  ORDER_DIRECTIONS,
  ORDER_STATUSES,
  ORDER_TYPES,
  PAYMENT_STATUSES,
  PAYMENT_TYPES,
  TIME_IN_FORCE,
} from '../../areas/payments';
import {
  anyObjectSchema,
  arraySchema,
  bigIntegerSchema,
  dateTimeSchema,
  ignoredParam,
  listQuerySchema,
  metadataSchema,
  objectSchema,
  stringSchema,
} from './common';
import { accountTypeSchema, anyObject, metadataBody, paymentsListQuery, shortText, str } from './payments';

/** Formance's v3 shapes of the payments API (accounts, manual records, V3Payment, initiations lists, conversions, orders, reversals). */
// --- Formance's v3 shapes (accounts, manual records, V3Payment) ---
export const accountSchema = objectSchema(
  {
    id: str,
    connectorID: str,
    provider: str,
    reference: str,
    type: accountTypeSchema,
    name: str,
    defaultAsset: str,
    createdAt: dateTimeSchema,
    metadata: metadataSchema,
    raw: anyObject,
    psuID: stringSchema({ format: 'uuid', description: 'Open banking: the payment service user whose bank connection gave this account' }),
    openBankingConnectionID: stringSchema({ description: 'Open banking: the bank connection that gave this account' }),
  },
  ['id', 'connectorID', 'provider', 'reference', 'type', 'createdAt', 'metadata', 'raw'],
);
export const accountsListQuery = listQuerySchema({
  query: stringSchema({
    maxLength: 10_000,
    description: "JSON filter, as the payments list's, over id, reference, connectorID, type, name, defaultAsset, createdAt, metadata[<key>].",
  }),
});
export const balanceSchema = objectSchema(
  { accountID: str, asset: str, balance: bigIntegerSchema(), createdAt: dateTimeSchema, lastUpdatedAt: dateTimeSchema },
  ['accountID', 'asset', 'balance', 'createdAt', 'lastUpdatedAt'],
);
export const balancesListQuery = listQuerySchema({
  asset: stringSchema({ pattern: ASSET_PATTERN }),
  fromTimestamp: { ...dateTimeSchema, description: 'Balances last updated at or after this time (only the latest balance per asset is kept).' },
  toTimestamp: { ...dateTimeSchema, description: 'Balances last updated before this time.' },
});
const nullableMetadata = { ...metadataBody, type: ['object', 'null'] } as unknown as typeof metadataBody;
const nullableText = (max: number) =>
  ({ ...stringSchema({ maxLength: max }), type: ['string', 'null'] }) as unknown as ReturnType<typeof stringSchema>;
export const manualAccountInputSchema = objectSchema(
  {
    connectorID: shortText(2000),
    reference: shortText(),
    accountName: shortText(),
    type: stringSchema({ enum: [...ACCOUNT_TYPES] }),
    createdAt: dateTimeSchema,
    defaultAsset: nullableText(100),
    metadata: nullableMetadata,
  },
  ['connectorID', 'reference', 'accountName', 'type', 'createdAt'],
);
const paymentStatusSchema = stringSchema({ enum: [...PAYMENT_STATUSES] });
export const manualPaymentInputSchema = objectSchema(
  {
    connectorID: shortText(2000),
    reference: shortText(),
    type: stringSchema({ enum: [...PAYMENT_TYPES] }),
    scheme: shortText(100),
    asset: stringSchema({ pattern: ASSET_PATTERN }),
    amount: { ...bigIntegerSchema('Minor units'), minimum: 0 },
    initialAmount: { ...bigIntegerSchema('Minor units'), minimum: 0 },
    createdAt: dateTimeSchema,
    sourceAccountID: shortText(2000),
    destinationAccountID: shortText(2000),
    metadata: nullableMetadata,
    adjustments: arraySchema(
      objectSchema(
        {
          reference: shortText(),
          createdAt: dateTimeSchema,
          status: paymentStatusSchema,
          amount: { ...bigIntegerSchema('Minor units'), minimum: 0 },
          asset: stringSchema({ pattern: ASSET_PATTERN }),
          metadata: nullableMetadata,
        },
        ['reference', 'createdAt', 'status'],
      ),
      { maxItems: 100 },
    ),
  },
  ['connectorID', 'reference', 'type', 'scheme', 'asset', 'amount', 'initialAmount', 'createdAt'],
);
const v3AdjustmentSchema = objectSchema(
  { id: str, reference: str, createdAt: dateTimeSchema, status: str, amount: bigIntegerSchema(), raw: anyObject },
  ['id', 'reference', 'createdAt', 'status', 'amount', 'raw'],
);
export const v3PaymentSchema = objectSchema(
  {
    id: str,
    reference: str,
    sourceAccountID: { type: ['string', 'null'] },
    destinationAccountID: { type: ['string', 'null'] },
    connectorID: str,
    provider: str,
    type: str,
    status: str,
    initialAmount: bigIntegerSchema(),
    amount: bigIntegerSchema(),
    scheme: str,
    asset: str,
    createdAt: dateTimeSchema,
    raw: anyObject,
    adjustments: { type: 'array', items: v3AdjustmentSchema },
    metadata: metadataSchema,
  },
  [
    'id',
    'reference',
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
/** Formance's v3 metadata updates wrap the map: `{metadata: {...}}`. */
export const v3MetadataBody = objectSchema({ metadata: nullableMetadata }, ['metadata']);
export const v3PaymentsListQuery = paymentsListQuery;
export const initiationsListQuery = listQuerySchema({
  query: stringSchema({
    maxLength: 10_000,
    description:
      "JSON filter, as the payments list's, over id, reference, connectorID, provider, type, status, asset, amount, sourceAccountID, destinationAccountID, createdAt, scheduledAt, metadata[<key>].",
  }),
});
/** Formance's v3 lists of bank accounts, pools, payment service users (and an initiation's adjustments and payments) take a `query` filter, not implemented on these short lists. */
export const v3PlainListQuery = listQuerySchema({ query: ignoredParam(stringSchema({ maxLength: 10_000, description: "Formance's JSON filter." })) });

// --- Conversions and orders (Formance's V3Conversion, V3Order), reversals ---
const nullableInteger = { ...bigIntegerSchema(), type: ['integer', 'null'] } as unknown as ReturnType<typeof bigIntegerSchema>;
const nullableString = { type: ['string', 'null'] } as unknown as ReturnType<typeof stringSchema>;
const nullableDate = { ...dateTimeSchema, type: ['string', 'null'] } as unknown as typeof dateTimeSchema;
export const conversionSchema = objectSchema(
  {
    id: str,
    connectorID: str,
    provider: str,
    reference: str,
    createdAt: dateTimeSchema,
    updatedAt: dateTimeSchema,
    status: stringSchema({ enum: [...CONVERSION_STATUSES] }),
    sourceAsset: str,
    destinationAsset: str,
    sourceAmount: bigIntegerSchema(),
    destinationAmount: nullableInteger,
    fee: nullableInteger,
    feeAsset: nullableString,
    sourceAccountID: nullableString,
    destinationAccountID: nullableString,
    error: nullableString,
    metadata: metadataSchema,
  },
  ['id', 'connectorID', 'provider', 'reference', 'createdAt', 'updatedAt', 'status', 'sourceAsset', 'destinationAsset', 'sourceAmount', 'metadata'],
);
const orderAdjustmentSchema = objectSchema(
  {
    id: str,
    reference: str,
    createdAt: dateTimeSchema,
    status: stringSchema({ enum: [...ORDER_STATUSES] }),
    baseQuantityFilled: nullableInteger,
    fee: nullableInteger,
    feeAsset: nullableString,
    metadata: metadataSchema,
    raw: anyObjectSchema(),
  },
  ['id', 'reference', 'createdAt', 'status', 'metadata', 'raw'],
);
export const orderSchema = objectSchema(
  {
    id: str,
    connectorID: str,
    provider: str,
    reference: str,
    createdAt: dateTimeSchema,
    updatedAt: dateTimeSchema,
    direction: stringSchema({ enum: [...ORDER_DIRECTIONS] }),
    type: stringSchema({ enum: [...ORDER_TYPES] }),
    status: stringSchema({ enum: [...ORDER_STATUSES] }),
    timeInForce: stringSchema({ enum: [...TIME_IN_FORCE] }),
    sourceAsset: str,
    destinationAsset: str,
    baseQuantityOrdered: bigIntegerSchema(),
    baseQuantityFilled: nullableInteger,
    limitPrice: nullableInteger,
    stopPrice: nullableInteger,
    averageFillPrice: nullableInteger,
    quoteAmount: nullableInteger,
    fee: nullableInteger,
    priceAsset: nullableString,
    quoteAsset: nullableString,
    feeAsset: nullableString,
    clientOrderID: nullableString,
    error: nullableString,
    expiresAt: nullableDate,
    sourceAccountID: nullableString,
    destinationAccountID: nullableString,
    metadata: metadataSchema,
    adjustments: arraySchema(orderAdjustmentSchema),
  },
  [
    'id',
    'connectorID',
    'provider',
    'reference',
    'createdAt',
    'updatedAt',
    'direction',
    'type',
    'status',
    'timeInForce',
    'sourceAsset',
    'destinationAsset',
    'baseQuantityOrdered',
    'metadata',
    'adjustments',
  ],
);
export const conversionsListQuery = listQuerySchema({
  query: stringSchema({
    maxLength: 10_000,
    description:
      "JSON filter, as the payments list's, over id, reference, connectorID, provider, status, sourceAsset, destinationAsset, sourceAmount, destinationAmount, sourceAccountID, destinationAccountID, createdAt, updatedAt, metadata[<key>].",
  }),
});
export const ordersListQuery = listQuerySchema({
  query: stringSchema({
    maxLength: 10_000,
    description:
      "JSON filter, as the payments list's, over id, reference, connectorID, provider, direction, type, status, timeInForce, sourceAsset, destinationAsset, baseQuantityOrdered, createdAt, updatedAt, metadata[<key>].",
  }),
});
export const reversalStartedSchema = objectSchema(
  {
    paymentInitiationReversalID: str,
    taskID: { type: 'string', description: 'Temporal workflow id of the reversal (`payment-initiation-<id>-reversal-<n>`)' },
  },
  ['paymentInitiationReversalID', 'taskID'],
);
