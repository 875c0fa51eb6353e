import { notFound } from '../../../lib/errors';
import { stringifyJson } from '../../../lib/json';
import type { Executor } from '../../../db/knex';
import { keysetPage, type Page, type PageRequest } from '../../../db/pagination';
import { providerLabel } from '../enums';
import { accountId, orderAdjustmentId, orderId } from '../ids';
import { compilePaymentsQuery, type QueryTable } from '../payments/payments-query';

/** Formance's V3OrderDirectionEnum, V3OrderTypeEnum, V3OrderStatusEnum and V3TimeInForceEnum. */
export const ORDER_DIRECTIONS = ['UNKNOWN', 'BUY', 'SELL'] as const;
export const ORDER_TYPES = [
  'UNKNOWN',
  'MARKET',
  'LIMIT',
  'STOP_LIMIT',
  'STOP',
  'TWAP',
  'VWAP',
  'PEG',
  'BLOCK',
  'RFQ',
  'TRAILING_STOP',
  'TRAILING_STOP_LIMIT',
  'TAKE_PROFIT',
  'TAKE_PROFIT_LIMIT',
  'LIMIT_MAKER',
] as const;
export const ORDER_STATUSES = ['UNKNOWN', 'PENDING', 'OPEN', 'PARTIALLY_FILLED', 'FILLED', 'CANCELLED', 'FAILED', 'EXPIRED'] as const;
export const TIME_IN_FORCE = ['UNKNOWN', 'GOOD_UNTIL_CANCELLED', 'GOOD_UNTIL_DATE_TIME', 'IMMEDIATE_OR_CANCEL', 'FILL_OR_KILL'] as const;

/** The amounts of an order (integers at their asset's precision); each optional one is null until the provider reports it. */
const AMOUNTS = ['baseQuantityOrdered', 'baseQuantityFilled', 'limitPrice', 'stopPrice', 'averageFillPrice', 'quoteAmount', 'fee'] as const;
const TEXTS = ['priceAsset', 'quoteAsset', 'feeAsset', 'clientOrderID', 'error'] as const;
const COLUMN: Record<(typeof AMOUNTS)[number] | (typeof TEXTS)[number], string> = {
  baseQuantityOrdered: 'base_quantity_ordered',
  baseQuantityFilled: 'base_quantity_filled',
  limitPrice: 'limit_price',
  stopPrice: 'stop_price',
  averageFillPrice: 'average_fill_price',
  quoteAmount: 'quote_amount',
  fee: 'fee',
  priceAsset: 'price_asset',
  quoteAsset: 'quote_asset',
  feeAsset: 'fee_asset',
  clientOrderID: 'client_order_id',
  error: 'error',
};

/** An exchange order as a provider describes it, in its current state. */
export interface ProviderOrder {
  reference: string;
  createdAt: Date;
  updatedAt: Date;
  direction: string;
  type: string;
  status: string;
  timeInForce: string;
  sourceAsset: string;
  destinationAsset: string;
  baseQuantityOrdered: bigint;
  baseQuantityFilled?: bigint;
  limitPrice?: bigint;
  stopPrice?: bigint;
  averageFillPrice?: bigint;
  quoteAmount?: bigint;
  fee?: bigint;
  priceAsset?: string;
  quoteAsset?: string;
  feeAsset?: string;
  clientOrderID?: string;
  error?: string;
  expiresAt?: Date;
  sourceAccountReference?: string;
  destinationAccountReference?: string;
  metadata: Record<string, string>;
  raw: unknown;
}

const big = (value: unknown): bigint | null => (value === null || value === undefined ? null : BigInt(value as string));

/** Formance's V3Order (`adjustments` newest first, each one observed state). */
export function presentOrder(r: any, adjustments: any[]) {
  return {
    id: r.id,
    connectorID: r.connector_id,
    provider: providerLabel(r.provider),
    reference: r.reference,
    createdAt: r.created_at as Date,
    updatedAt: r.updated_at,
    direction: r.direction,
    type: r.type,
    status: r.status,
    timeInForce: r.time_in_force,
    sourceAsset: r.source_asset,
    destinationAsset: r.destination_asset,
    ...(Object.fromEntries(AMOUNTS.map((k) => [k, big(r[COLUMN[k]])])) as Record<(typeof AMOUNTS)[number], bigint | null>),
    ...(Object.fromEntries(TEXTS.map((k) => [k, r[COLUMN[k]] ?? null])) as Record<(typeof TEXTS)[number], string | null>),
    expiresAt: r.expires_at ?? null,
    sourceAccountID: r.source_account_id,
    destinationAccountID: r.destination_account_id,
    metadata: r.metadata ?? {},
    adjustments: adjustments.map((a) => ({
      id: a.id,
      reference: a.reference,
      createdAt: a.created_at,
      status: a.status,
      baseQuantityFilled: big(a.base_quantity_filled),
      fee: big(a.fee),
      feeAsset: a.fee_asset,
      metadata: a.metadata ?? {},
      raw: a.raw ?? {},
    })),
  };
}
export type Order = ReturnType<typeof presentOrder>;

/**
 * Upserts a connector's orders by (connector, reference) and records each newly observed state (status, filled
 * quantity, fee) as an adjustment whose id is derived from it, so refetching an unchanged order writes nothing.
 * Returns how many orders changed.
 */
export async function upsertOrders(trx: Executor, connectorID: string, orders: ProviderOrder[]): Promise<number> {
  const account = (reference?: string) => (reference ? accountId(connectorID, reference) : null);
  let changed = 0;
  for (const o of orders) {
    const id = orderId(connectorID, o.reference);
    const values: Record<string, unknown> = {
      id,
      connector_id: connectorID,
      reference: o.reference,
      created_at: o.createdAt,
      updated_at: o.updatedAt,
      direction: o.direction,
      type: o.type,
      status: o.status,
      time_in_force: o.timeInForce,
      source_asset: o.sourceAsset,
      destination_asset: o.destinationAsset,
      expires_at: o.expiresAt ?? null,
      source_account_id: account(o.sourceAccountReference),
      destination_account_id: account(o.destinationAccountReference),
      metadata: stringifyJson(o.metadata),
      raw: stringifyJson(o.raw ?? {}),
      ...Object.fromEntries(AMOUNTS.map((k) => [COLUMN[k], o[k]?.toString() ?? null])),
      ...Object.fromEntries(TEXTS.map((k) => [COLUMN[k], o[k] ?? null])),
    };
    const mutable = Object.keys(values).filter((k) => !['id', 'connector_id', 'reference', 'created_at'].includes(k));
    const { rows } = await trx.raw(
      `INSERT INTO payments_orders AS t (${Object.keys(values).join(', ')}) VALUES (${Object.keys(values)
        .map(() => '?')
        .join(', ')})
       ON CONFLICT (id) DO UPDATE SET ${mutable.map((k) => `${k} = excluded.${k}`).join(', ')}
       WHERE (${mutable.map((k) => `t.${k}`).join(', ')}) IS DISTINCT FROM (${mutable.map((k) => `excluded.${k}`).join(', ')})
       RETURNING id`,
      Object.values(values) as any[],
    );
    const filled = o.baseQuantityFilled?.toString() ?? '';
    const fee = o.fee?.toString() ?? '';
    await trx('payments_order_adjustments')
      .insert({
        id: orderAdjustmentId(id, o.status, filled, fee),
        order_id: id,
        reference: o.reference,
        created_at: o.updatedAt,
        status: o.status,
        base_quantity_filled: filled || null,
        fee: fee || null,
        fee_asset: o.feeAsset ?? null,
        metadata: stringifyJson(o.metadata),
        raw: stringifyJson(o.raw ?? {}),
      })
      .onConflict('id')
      .ignore();
    changed += rows.length;
  }
  return changed;
}

const ORDER_FIELDS: QueryTable['fields'] = {
  id: { sql: 'o.id', kind: 'string' },
  reference: { sql: 'o.reference', kind: 'string' },
  connectorID: { sql: 'o.connector_id', kind: 'string' },
  provider: { sql: 'c.provider', kind: 'string', caseInsensitive: true },
  direction: { sql: 'o.direction', kind: 'string' },
  type: { sql: 'o.type', kind: 'string' },
  status: { sql: 'o.status', kind: 'string' },
  timeInForce: { sql: 'o.time_in_force', kind: 'string' },
  sourceAsset: { sql: 'o.source_asset', kind: 'string' },
  destinationAsset: { sql: 'o.destination_asset', kind: 'string' },
  baseQuantityOrdered: { sql: 'o.base_quantity_ordered', kind: 'number' },
  createdAt: { sql: 'o.created_at', kind: 'date' },
  updatedAt: { sql: 'o.updated_at', kind: 'date' },
};
const ORDER_ALIASES = {
  connector_id: 'connectorID',
  source_asset: 'sourceAsset',
  destination_asset: 'destinationAsset',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
};
export const ORDERS_TABLE: QueryTable = {
  fields: ORDER_FIELDS,
  aliases: ORDER_ALIASES,
  metadata: 'o.metadata',
  names: [...Object.keys(ORDER_FIELDS), ...Object.keys(ORDER_ALIASES), 'metadata[<key>]'],
};

const SELECT = (db: Executor) => db('payments_orders as o').join('payments_connectors as c', 'c.id', 'o.connector_id').select('o.*', 'c.provider');

async function withAdjustments(db: Executor, rows: any[]): Promise<Order[]> {
  const adjustments = rows.length
    ? await db('payments_order_adjustments')
        .whereIn(
          'order_id',
          rows.map((r) => r.id),
        )
        .orderBy('seq', 'desc')
    : [];
  return rows.map((r) =>
    presentOrder(
      r,
      adjustments.filter((a: any) => a.order_id === r.id),
    ),
  );
}

/** Newest first, filtered by Formance's `query` over the order's fields. Throws VALIDATION. */
export async function listOrders(db: Executor, filters: { query?: string }, page: PageRequest): Promise<Page<Order>> {
  const query = SELECT(db);
  const condition = filters.query !== undefined ? compilePaymentsQuery(filters.query, ORDERS_TABLE) : undefined;
  if (condition) query.whereRaw(condition.sql, condition.bindings as any[]);
  const rows = await keysetPage<any>(query, ['o.created_at', 'o.id'], 'desc', page);
  return { ...rows, items: await withAdjustments(db, rows.items) };
}
export const orderKey = (o: Order): unknown[] => [o.createdAt.toISOString(), o.id];

/** Throws NOT_FOUND. */
export async function getOrder(db: Executor, id: string): Promise<Order> {
  const row = await SELECT(db).where('o.id', id).first();
  if (!row) throw notFound(`order ${id} not found`);
  return (await withAdjustments(db, [row]))[0];
}
