import { compileQuery, metadataField, type FieldResolver, type QueryField, type SqlCondition } from '../../../db/filter-query';
import { addressPatternRegex } from '../rules/rules';

/**
 * The ledger's lists in Formance's filter language (db/filter-query.ts compiles it): each list names its fields (a
 * resolver); the ledger's dialect adds `$like`, empty `$and`/`$or` and `{"$exists": {"metadata": key}}`, and matches
 * addresses Formance's way (addressField).
 */
export { metadataField, type FieldResolver, type QueryField, type SqlCondition };

/**
 * Parses and compiles a `query` for one ledger list; `{}` matches everything (undefined).
 * @throws ApiError VALIDATION for malformed JSON, nesting deeper than MAX_JSON_DEPTH, an unknown field or operator, a value of the wrong type
 */
export function compileLedgerQuery(text: string | undefined, resolve: FieldResolver, fields: string): SqlCondition | undefined {
  return compileQuery(text, { resolve, fields, like: true, emptyConnectives: true, metadataExists: true });
}

/** An address field matched Formance's way: a plain address is equality, `users:` one level, `users:...` any depth. */
export function addressField(sql: string): QueryField {
  return {
    kind: 'string',
    sql,
    match: (address) => {
      const regex = addressPatternRegex(address);
      return regex ? { sql: `(${sql} ~ ?)`, bindings: [regex] } : { sql: `(${sql} = ?)`, bindings: [address] };
    },
  };
}

/** A text[] of addresses (a transaction's sources, destinations): `$match` holds when one of them matches. */
export function addressesField(sql: string): QueryField {
  return {
    kind: 'string',
    sql,
    array: true,
    match: (address) => {
      const regex = addressPatternRegex(address);
      return regex
        ? { sql: `(EXISTS (SELECT 1 FROM unnest(${sql}) a WHERE a ~ ?))`, bindings: [regex] }
        : { sql: `(${sql} @> ARRAY[?]::text[])`, bindings: [address] };
    },
  };
}

/**
 * The fields of an account, for the accounts list and count, the aggregated balances and the volumes: `address`,
 * `metadata[key]`, `balance[ASSET]` (the account's balance in that asset) and `balance` (any asset's).
 * `ledgerSql` and `addressSql` name the row's ledger and address; `metadataSql` its metadata.
 */
export function accountFields(ledgerSql: string, addressSql: string, metadataSql: string): FieldResolver {
  return (name) => {
    if (name === 'address' || name === 'account') return addressField(addressSql);
    const metadata = metadataField(name, metadataSql);
    if (metadata) return metadata;
    const asset = /^balance\[(.+)\]$/.exec(name);
    if (asset) {
      return {
        kind: 'number',
        sql: `(SELECT bv.input - bv.output FROM ledger_volumes bv WHERE bv.ledger = ${ledgerSql} AND bv.address = ${addressSql} AND bv.asset = ?)::numeric`,
        params: [asset[1]],
      };
    }
    if (name === 'balance') {
      const any = (op: string) =>
        `EXISTS (SELECT 1 FROM ledger_volumes bv WHERE bv.ledger = ${ledgerSql} AND bv.address = ${addressSql} AND bv.input - bv.output ${op} ?::numeric)`;
      return { kind: 'number', sql: '', any };
    }
    return undefined;
  };
}

export const ACCOUNT_FIELDS = 'address, metadata[<key>], balance[<asset>], balance';
