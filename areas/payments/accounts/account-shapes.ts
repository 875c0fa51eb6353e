import { isoTimestampText, jsonText } from '../../../db/json-sql';
import { jsonShape } from '../../../db/json-shape';
import { providerLabel } from '../enums';

/**
 * The JSON shapes of an account, each defined once (db/json-shape.ts): the JS view (presentAccount,
 * presentAccountV1) and the SQL that PostgreSQL writes the account list's items with, from a `payments_accounts` row
 * `a` joined with its connector `c`. The row given to a view carries the connector's `provider` (and, for v1, the
 * account's `pools`). metadata and raw are written as jsonb's own text in SQL (the same JSON, its own spacing and key
 * order).
 */

/** A jsonb column's text, `{}` for a JSON null, as the views' `?? {}` write it. */
const objectOrEmpty = (column: string) => `coalesce(nullif(${column}, 'null'::jsonb), '{}'::jsonb)::text`;
/** A text member left out when the column is NULL or empty, as the JS view leaves out falsy values. */
const optionalText = (js: (r: any) => any, column: string) => ({
  js: (r: any) => js(r) || undefined,
  sql: jsonText(column),
  omitWhen: `coalesce(${column}::text, '') = ''`,
});
const text = (js: (r: any) => any, sql: string) => ({ js, sql: jsonText(sql) });
const createdAt = text((r) => r.created_at, isoTimestampText('a.created_at'));
const shape = jsonShape<any>();

export const ACCOUNT_SHAPES = {
  /** Formance's V3Account. */
  v3: shape({
    id: text((r) => r.id, 'a.id'),
    connectorID: text((r) => r.connector_id, 'a.connector_id'),
    provider: text((r) => providerLabel(r.provider), 'upper(c.provider)'),
    reference: text((r) => r.reference, 'a.reference'),
    type: text((r) => r.type, 'a.type'),
    name: optionalText((r) => r.name, 'a.name'),
    defaultAsset: optionalText((r) => r.default_asset, 'a.default_asset'),
    createdAt,
    metadata: { js: (r) => r.metadata ?? {}, sql: objectOrEmpty('a.metadata') },
    raw: { js: (r) => r.raw, sql: 'a.raw::text' },
    psuID: optionalText((r) => r.psu_id, 'a.psu_id'),
    openBankingConnectionID: optionalText((r) => r.open_banking_connection_id, 'a.open_banking_connection_id'),
  }),
  /** Payments v1's Account. */
  v1: shape({
    id: text((r) => r.id, 'a.id'),
    reference: text((r) => r.reference, 'a.reference'),
    connectorID: text((r) => r.connector_id, 'a.connector_id'),
    provider: text((r) => providerLabel(r.provider), 'upper(c.provider)'),
    createdAt,
    accountName: text((r) => r.name ?? '', "coalesce(a.name, '')"),
    defaultAsset: text((r) => r.default_asset ?? '', "coalesce(a.default_asset, '')"),
    defaultCurrency: text((r) => r.default_asset ?? '', "coalesce(a.default_asset, '')"),
    type: text((r) => r.type, 'a.type'),
    metadata: { js: (r) => r.metadata ?? {}, sql: objectOrEmpty('a.metadata') },
    raw: { js: (r) => r.raw ?? {}, sql: objectOrEmpty('a.raw') },
    pools: text(
      (r) => r.pools ?? [],
      "coalesce((SELECT array_agg(pa.pool_id::text ORDER BY pa.pool_id) FROM payments_pool_accounts pa WHERE pa.account_id = a.id), '{}'::text[])",
    ),
  }),
};
