/**
 * The grammars of the platform's names and identifiers, kept in one place for the HTTP schemas, the services and the
 * workflow code that checks a workflow's literals at creation. They live in lib/ because workflow code is replayed by
 * Temporal and may import nothing from db/ or api/.
 */

/** Formance's rules (pkg/accounts, pkg/assets, ledger names). */
export const ADDRESS_PATTERN = '^[a-zA-Z0-9_-]+(:[a-zA-Z0-9_-]+)*$';
export const ASSET_PATTERN = '^[A-Z][A-Z0-9]{0,16}(_[A-Z]{1,16})?(\\/\\d{1,6})?$';
export const LEDGER_NAME_PATTERN = '^[0-9a-zA-Z_-]{1,63}$';

/** `EUR/2`, `USD`, `BTC/8`: the payments area's assets, the ledger's without the `_SUFFIX` part. */
export const PAYMENT_ASSET_PATTERN = '^[A-Z][A-Z0-9]{0,16}(/[0-9]{1,6})?$';

export const BALANCE_NAME_PATTERN = '^[a-zA-Z0-9_-]{1,64}$';
export const WALLET_NAME_MAX_LENGTH = 200;

export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
/** Payments, accounts and connectors are named by base64url (unpadded) of a JSON object (areas/payments/ids.ts). */
export const PROVIDER_OBJECT_ID_PATTERN = '^[A-Za-z0-9_-]+$';
