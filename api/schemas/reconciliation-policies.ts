import { anyObjectSchema, bigIntegerSchema, dateTimeSchema, listQuerySchema, mapSchema, objectSchema, stringSchema } from './common';

const balances = (what: string) => mapSchema({ ...bigIntegerSchema(`${what}, by asset`), minimum: undefined });

export const policyInputSchema = objectSchema(
  {
    name: stringSchema({ minLength: 1, maxLength: 200, description: 'A name for people; not unique.' }),
    ledgerName: stringSchema({ minLength: 1, maxLength: 200, description: 'The ledger whose accounts mirror the pool.' }),
    ledgerQuery: anyObjectSchema({
      description: "Formance's account filter (`$match`, `$and`, ...; the fields of the ledger's account list); `{}` selects every account.",
    }),
    paymentsPoolID: stringSchema({ minLength: 1, maxLength: 200, description: 'The payments pool holding the money.' }),
  },
  ['name', 'ledgerName', 'ledgerQuery', 'paymentsPoolID'],
);

export const policySchema = objectSchema(
  {
    id: stringSchema({ format: 'uuid' }),
    name: stringSchema(),
    ledgerName: stringSchema(),
    ledgerQuery: anyObjectSchema(),
    paymentsPoolID: stringSchema(),
    createdAt: dateTimeSchema,
  },
  ['id', 'name', 'ledgerName', 'ledgerQuery', 'paymentsPoolID', 'createdAt'],
);

export const reconcileInputSchema = objectSchema(
  {
    reconciledAtLedger: { ...dateTimeSchema, description: "The ledger's balances as they were at this past instant (effective dates)." },
    reconciledAtPayments: { ...dateTimeSchema, description: "The pool's balances as last fetched at or before this past instant." },
  },
  ['reconciledAtLedger', 'reconciledAtPayments'],
);

export const reconciliationSchema = objectSchema(
  {
    id: stringSchema({ format: 'uuid' }),
    policyID: stringSchema({ format: 'uuid' }),
    createdAt: dateTimeSchema,
    reconciledAtLedger: dateTimeSchema,
    reconciledAtPayments: dateTimeSchema,
    status: stringSchema({ enum: ['OK', 'NOT_OK'] }),
    ledgerBalances: balances("Aggregated balance of the policy's ledger accounts"),
    paymentsBalances: balances('Balance of the pool'),
    driftBalances: balances('|ledger + payments|'),
    error: stringSchema({
      description:
        'Why the status is NOT_OK ("" when OK): `missing asset <asset> in ledgerBalances|paymentsBalances`, `balance drift for asset <asset>`, joined by "; ".',
    }),
  },
  [
    'id',
    'policyID',
    'createdAt',
    'reconciledAtLedger',
    'reconciledAtPayments',
    'status',
    'ledgerBalances',
    'paymentsBalances',
    'driftBalances',
    'error',
  ],
);

export const policyParams = objectSchema({ policyID: stringSchema({ minLength: 1 }) }, ['policyID']);
export const reconciliationParams = objectSchema({ reconciliationID: stringSchema({ minLength: 1 }) }, ['reconciliationID']);
const listFilter = (fields: string) =>
  stringSchema({ maxLength: 10_000, description: `Formance's filter, JSON: \`{"$match": {field: value}}\` or an \`$and\` of them, on ${fields}.` });
export const policyListQuery = listQuerySchema({ query: listFilter('id, name, ledgerName, paymentsPoolID') });
export const reconciliationListQuery = listQuerySchema({ query: listFilter('id, policyID, status') });
