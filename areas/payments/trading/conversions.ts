import { notFound } from '../../../lib/errors';
import { stringifyJson } from '../../../lib/json';
import type { Executor } from '../../../db/knex';
import { keysetPage, type Page, type PageRequest } from '../../../db/pagination';
import { providerLabel } from '../enums';
import { accountId, conversionId } from '../ids';
import { compilePaymentsQuery, type QueryTable } from '../payments/payments-query';

export const CONVERSION_STATUSES = ['UNKNOWN', 'PENDING', 'COMPLETED', 'FAILED'] as const;

/** A conversion (a direct swap between two assets) as a provider describes it, in its current state. */
export interface ProviderConversion {
  reference: string;
  createdAt: Date;
  updatedAt: Date;
  status: string;
  sourceAsset: string;
  destinationAsset: string;
  sourceAmount: bigint;
  destinationAmount?: bigint;
  fee?: bigint;
  feeAsset?: string;
  sourceAccountReference?: string;
  destinationAccountReference?: string;
  error?: string;
  metadata: Record<string, string>;
  raw: unknown;
}

/** Formance's V3Conversion. */
export interface Conversion {
  id: string;
  connectorID: string;
  provider: string;
  reference: string;
  createdAt: Date;
  updatedAt: Date;
  status: string;
  sourceAsset: string;
  destinationAsset: string;
  sourceAmount: bigint;
  destinationAmount: bigint | null;
  fee: bigint | null;
  feeAsset: string | null;
  sourceAccountID: string | null;
  destinationAccountID: string | null;
  error: string | null;
  metadata: Record<string, string>;
}

const big = (value: unknown): bigint | null => (value === null || value === undefined ? null : BigInt(value as string));
const text = (value: bigint | undefined): string | null => (value === undefined ? null : value.toString());

export const presentConversion = (r: any): Conversion => ({
  id: r.id,
  connectorID: r.connector_id,
  provider: providerLabel(r.provider),
  reference: r.reference,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  status: r.status,
  sourceAsset: r.source_asset,
  destinationAsset: r.destination_asset,
  sourceAmount: BigInt(r.source_amount),
  destinationAmount: big(r.destination_amount),
  fee: big(r.fee),
  feeAsset: r.fee_asset,
  sourceAccountID: r.source_account_id,
  destinationAccountID: r.destination_account_id,
  error: r.error,
  metadata: r.metadata ?? {},
});

/**
 * Upserts a connector's conversions by (connector, reference), the id derived from both as for payments: an unchanged
 * conversion writes nothing. Formance keeps no history of a conversion, only its latest state. Returns how many changed.
 */
export async function upsertConversions(trx: Executor, connectorID: string, conversions: ProviderConversion[]): Promise<number> {
  const account = (reference?: string) => (reference ? accountId(connectorID, reference) : null);
  let changed = 0;
  for (const c of conversions) {
    const { rows } = await trx.raw(
      `INSERT INTO payments_conversions AS t (id, connector_id, reference, created_at, updated_at, status, source_asset, destination_asset,
         source_amount, destination_amount, fee, fee_asset, source_account_id, destination_account_id, error, metadata, raw)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb)
       ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, status = excluded.status, destination_amount = excluded.destination_amount,
         fee = excluded.fee, fee_asset = excluded.fee_asset, error = excluded.error, metadata = excluded.metadata, raw = excluded.raw
       WHERE (t.updated_at, t.status, t.destination_amount, t.fee, t.fee_asset, t.error, t.metadata, t.raw)
         IS DISTINCT FROM (excluded.updated_at, excluded.status, excluded.destination_amount, excluded.fee, excluded.fee_asset, excluded.error, excluded.metadata, excluded.raw)
       RETURNING id`,
      [
        conversionId(connectorID, c.reference),
        connectorID,
        c.reference,
        c.createdAt,
        c.updatedAt,
        c.status,
        c.sourceAsset,
        c.destinationAsset,
        c.sourceAmount.toString(),
        text(c.destinationAmount),
        text(c.fee),
        c.feeAsset ?? null,
        account(c.sourceAccountReference),
        account(c.destinationAccountReference),
        c.error ?? null,
        stringifyJson(c.metadata),
        stringifyJson(c.raw ?? {}),
      ],
    );
    changed += rows.length;
  }
  return changed;
}

const CONVERSION_FIELDS: QueryTable['fields'] = {
  id: { sql: 'v.id', kind: 'string' },
  reference: { sql: 'v.reference', kind: 'string' },
  connectorID: { sql: 'v.connector_id', kind: 'string' },
  provider: { sql: 'c.provider', kind: 'string', caseInsensitive: true },
  status: { sql: 'v.status', kind: 'string' },
  sourceAsset: { sql: 'v.source_asset', kind: 'string' },
  destinationAsset: { sql: 'v.destination_asset', kind: 'string' },
  sourceAmount: { sql: 'v.source_amount', kind: 'number' },
  destinationAmount: { sql: 'v.destination_amount', kind: 'number' },
  sourceAccountID: { sql: 'v.source_account_id', kind: 'string' },
  destinationAccountID: { sql: 'v.destination_account_id', kind: 'string' },
  createdAt: { sql: 'v.created_at', kind: 'date' },
  updatedAt: { sql: 'v.updated_at', kind: 'date' },
};
const CONVERSION_ALIASES = {
  connector_id: 'connectorID',
  source_asset: 'sourceAsset',
  destination_asset: 'destinationAsset',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
};
export const CONVERSIONS_TABLE: QueryTable = {
  fields: CONVERSION_FIELDS,
  aliases: CONVERSION_ALIASES,
  metadata: 'v.metadata',
  names: [...Object.keys(CONVERSION_FIELDS), ...Object.keys(CONVERSION_ALIASES), 'metadata[<key>]'],
};

const SELECT = (db: Executor) =>
  db('payments_conversions as v').join('payments_connectors as c', 'c.id', 'v.connector_id').select('v.*', 'c.provider');

/** Newest first, filtered by Formance's `query` over the conversion's fields. Throws VALIDATION. */
export async function listConversions(db: Executor, filters: { query?: string }, page: PageRequest): Promise<Page<Conversion>> {
  const query = SELECT(db);
  const condition = filters.query !== undefined ? compilePaymentsQuery(filters.query, CONVERSIONS_TABLE) : undefined;
  if (condition) query.whereRaw(condition.sql, condition.bindings as any[]);
  const rows = await keysetPage<any>(query, ['v.created_at', 'v.id'], 'desc', page);
  return { ...rows, items: rows.items.map(presentConversion) };
}
export const conversionKey = (c: Conversion): unknown[] => [c.createdAt.toISOString(), c.id];

/** Throws NOT_FOUND. */
export async function getConversion(db: Executor, id: string): Promise<Conversion> {
  const row = await SELECT(db).where('v.id', id).first();
  if (!row) throw notFound(`conversion ${id} not found`);
  return presentConversion(row);
}
