import { isoTimestampText, jsonText } from '../../../db/json-sql';
import { jsonShape } from '../../../db/json-shape';
import { providerLabel } from '../enums';

/**
 * The JSON shapes of a payment, each defined once (db/json-shape.ts): the JS view (presentPayments) and the SQL that
 * PostgreSQL writes the payments list's items with, from a `payments_payments` row `p` joined with its connector `c`.
 * v1 is the spec's Payment (an absent account is ""), v3 Formance's V3Payment (an absent account is null, adjustments
 * carry their id). The row given to a view carries the connector's `provider` and its `adjustments` rows, newest
 * first. raw and metadata are written as jsonb's own text in SQL (the same JSON, its own spacing and key order).
 */
const text = (js: (r: any) => any, sql: string) => ({ js, sql: jsonText(sql) });
const date = (js: (r: any) => any, column: string) => text(js, isoTimestampText(column));
const amount = (js: (r: any) => any, column: string) => ({ js: (r: any) => BigInt(js(r)), sql: `${column}::text` });
const jsonb = (js: (r: any) => any, column: string) => ({ js, sql: `${column}::text` });
const shape = jsonShape<any>();

const adjustmentShape = (v3: boolean) =>
  shape({
    ...(v3 ? { id: text((a) => a.id, 'a.id') } : {}),
    reference: text((a) => a.reference, 'a.reference'),
    createdAt: date((a) => a.created_at, 'a.created_at'),
    status: text((a) => a.status, 'a.status'),
    amount: amount((a) => a.amount, 'a.amount'),
    raw: jsonb((a) => a.raw, 'a.raw'),
  });

/** An account id: null when absent in v3, "" in v1. */
const accountId = (v3: boolean, column: 'source_account_id' | 'destination_account_id') => ({
  js: (r: any) => r[column] ?? (v3 ? null : ''),
  sql: v3 ? `coalesce(${jsonText(`p.${column}`)}, 'null')` : jsonText(`coalesce(p.${column}, '')`),
});

/**
 * A payment's adjustments' JSON texts, newest first, separated by ", " as json_agg separates them, so that the list
 * answers the same bytes as when json_agg wrote it.
 */
const adjustmentsSql = (item: string) => `SELECT string_agg(${item}, ', ' ORDER BY a.seq DESC) FROM payments_adjustments a WHERE a.payment_id = p.id`;

const paymentShape = (v3: boolean) => {
  const adjustment = adjustmentShape(v3);
  return shape({
    id: text((r) => r.id, 'p.id'),
    reference: text((r) => r.reference, 'p.reference'),
    sourceAccountID: accountId(v3, 'source_account_id'),
    destinationAccountID: accountId(v3, 'destination_account_id'),
    connectorID: text((r) => r.connector_id, 'p.connector_id'),
    provider: text((r) => providerLabel(r.provider), 'upper(c.provider)'),
    type: text((r) => r.type, 'p.type'),
    status: text((r) => r.status, 'p.status'),
    initialAmount: amount((r) => r.initial_amount, 'p.initial_amount'),
    amount: amount((r) => r.amount, 'p.amount'),
    scheme: text((r) => r.scheme, 'p.scheme'),
    asset: text((r) => r.asset, 'p.asset'),
    createdAt: date((r) => r.created_at, 'p.created_at'),
    raw: jsonb((r) => r.raw, 'p.raw'),
    adjustments: {
      js: (r: any) => (r.adjustments as unknown[]).map((a) => adjustment.view(a)),
      sql: `'[' || coalesce((${adjustmentsSql(adjustment.sql())}), '') || ']'`,
    },
    metadata: { js: (r: any) => r.metadata ?? {}, sql: 'p.metadata::text' },
  });
};

export const PAYMENT_SHAPES = { v1: paymentShape(false), v3: paymentShape(true) };
