/**
 * What `event` holds in a trigger's expressions, per event type that can fire a trigger: the payloads the ledger (v2)
 * and payments (v3) areas emit (areas/ledger/reads/views.ts, areas/payments/*.ts), as CEL types. Trigger creation checks the
 * expressions against them, so `event.nosuchfield` is refused there rather than failing on every event. Values are
 * what the JSON payload gives CEL: dates are strings, amounts ints. Provider data stays dynamic. An integration test
 * (trigger-payloads.test.ts) compares the events the platform emits with these shapes.
 */
export class ListOf {
  constructor(readonly item: PayloadShape) {}
}
export class MapOf {
  constructor(readonly value: PayloadShape) {}
}
/** A CEL type name, a list, a map with string keys, or an object with these fields (any may be absent). */
export type PayloadShape = string | ListOf | MapOf | { [field: string]: PayloadShape };

const list = (item: PayloadShape) => new ListOf(item);
const map = (value: PayloadShape) => new MapOf(value);
const fields = (names: string, type = 'string') => Object.fromEntries(names.split(' ').map((name) => [name, type]));

const ledgerMetadata = 'map<string, string>';
// Providers put what they like in payments metadata; the payments API itself reads it as strings.
const providerMetadata = 'map<string, dyn>';

const volumes = map(map(fields('input output balance', 'int')));
const transaction = {
  ...fields('timestamp reference insertedAt revertedAt'),
  id: 'int',
  postings: list({ ...fields('source destination asset'), amount: 'int' }),
  metadata: ledgerMetadata,
  reverted: 'bool',
  preCommitVolumes: volumes,
  postCommitVolumes: volumes,
};

export const EVENT_PAYLOADS: Record<string, PayloadShape> = {
  COMMITTED_TRANSACTIONS: { ledger: 'string', transactions: list(transaction), accountMetadata: map(ledgerMetadata) },
  REVERTED_TRANSACTION: { ledger: 'string', revertedTransaction: transaction, revertTransaction: transaction },
  // targetId is an address for an account and a transaction id (an int) for a transaction.
  SAVED_METADATA: { ...fields('ledger targetType'), targetId: 'dyn', metadata: ledgerMetadata },
  DELETED_METADATA: { ...fields('ledger targetType key'), targetId: 'dyn' },

  SAVED_PAYMENT: {
    ...fields('id reference sourceAccountID destinationAccountID connectorID provider type status scheme asset createdAt'),
    initialAmount: 'int',
    amount: 'int',
    metadata: providerMetadata,
    rawData: 'dyn',
  },
  SAVED_ACCOUNT: { ...fields('id connectorID provider reference type name defaultAsset createdAt'), metadata: providerMetadata, rawData: 'dyn' },
  SAVED_BALANCE: { ...fields('accountID connectorID provider asset createdAt lastUpdatedAt'), balance: 'int' },
  SAVED_BANK_ACCOUNT: {
    ...fields('id name createdAt country iban accountNumber swiftBicCode connectorID accountID provider'),
    relatedAccounts: list(fields('id accountID connectorID provider createdAt')),
    metadata: providerMetadata,
  },
  SAVED_POOL: { ...fields('id name createdAt type'), accountIDs: list('string') },
  DELETED_POOL: fields('id createdAt'),
  SAVED_PAYMENT_INITIATION: {
    ...fields('id connectorID provider reference createdAt scheduledAt description type asset status sourceAccountID destinationAccountID error'),
    amount: 'int',
    metadata: providerMetadata,
  },
  SAVED_PAYMENT_INITIATION_ADJUSTMENT: {
    ...fields('id paymentInitiationID createdAt status asset error'),
    amount: 'int',
    metadata: providerMetadata,
  },
  SAVED_PAYMENT_INITIATION_RELATED_PAYMENT: fields('paymentInitiationID paymentID'),
};
