import { validationError } from '../../lib/errors';
import type { Executor } from '../../db/knex';
import type { Page, PageRequest } from '../../db/pagination';
import { type paymentsQuery, type Payment } from './payments';
import { compilePaymentsQuery } from './payments-query';

/** Sortable fields (`field:asc|desc`); `date` and `createdAt` are the same column. The id breaks ties. */
const SORT_COLUMNS: Record<string, { sql: string; key: (p: PaymentSortFields) => string }> = {
  date: { sql: 'p.created_at', key: (p) => p.createdAt.toISOString() },
  createdAt: { sql: 'p.created_at', key: (p) => p.createdAt.toISOString() },
  amount: { sql: 'p.amount', key: (p) => p.amount.toString() },
  initialAmount: { sql: 'p.initial_amount', key: (p) => p.initialAmount.toString() },
  reference: { sql: 'p.reference', key: (p) => p.reference },
  status: { sql: 'p.status', key: (p) => p.status },
  type: { sql: 'p.type', key: (p) => p.type },
  asset: { sql: 'p.asset', key: (p) => p.asset },
  scheme: { sql: 'p.scheme', key: (p) => p.scheme },
  id: { sql: 'p.id', key: (p) => p.id },
};
export const SORT_FIELDS = Object.keys(SORT_COLUMNS);

export interface PaymentsFilters { sort?: string[]; query?: string }
interface SortKey { field: string; sql: string; dir: 'asc' | 'desc' }

/** `["amount:asc", "date:desc"]` or `["amount:asc,date:desc"]`; default `date:desc`. Throws VALIDATION. */
export function parseSort(sort: string[] | undefined): SortKey[] {
  const items = (sort ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  const keys = (items.length ? items : ['date:desc']).map((item) => {
    const [field, dir = 'asc', ...rest] = item.split(':');
    const column = SORT_COLUMNS[field];
    if (!column || rest.length || (dir !== 'asc' && dir !== 'desc')) {
      throw validationError(`query.sort: "${item}" is not <field>:asc|desc with a field among ${SORT_FIELDS.join(', ')}`);
    }
    return { field, sql: column.sql, dir: dir as 'asc' | 'desc' };
  });
  if (!keys.some((k) => k.field === 'id')) keys.push({ field: 'id', sql: 'p.id', dir: keys[keys.length - 1].dir });
  return keys;
}

export const paymentSortKeyOf = (filters: PaymentsFilters) => {
  const keys = parseSort(filters.sort);
  return (p: PaymentSortFields): unknown[] => keys.map((k) => SORT_COLUMNS[k.field].key(p));
};

/** What a payments page needs of a row to sign its cursors (see paymentSortKeyOf). */
export type PaymentSortFields = Pick<Payment, 'id' | 'reference' | 'status' | 'type' | 'asset' | 'scheme' | 'createdAt' | 'amount' | 'initialAmount'>;

/**
 * A payment rendered to its wire JSON by PostgreSQL, member for member as presentPayments and stringifyJson write it
 * (amounts as exact numbers, dates as ISO 8601 in UTC with milliseconds, adjustments newest first). The API inserts
 * the text as it is: a page of 1000 payments then costs the API no parsing of `raw`/`metadata` and no serializing.
 */
const UTC_ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const paymentJson = (v3: boolean) => `row_to_json((SELECT r FROM (SELECT
    p.id AS "id", p.reference AS "reference", ${v3 ? 'p.source_account_id' : "coalesce(p.source_account_id, '')"} AS "sourceAccountID",
    ${v3 ? 'p.destination_account_id' : "coalesce(p.destination_account_id, '')"} AS "destinationAccountID", p.connector_id AS "connectorID", upper(c.provider) AS "provider",
    p.type AS "type", p.status AS "status", p.initial_amount AS "initialAmount", p.amount AS "amount", p.scheme AS "scheme",
    p.asset AS "asset", to_char(p.created_at AT TIME ZONE 'UTC', ${UTC_ISO}) AS "createdAt", p.raw AS "raw",
    coalesce((SELECT json_agg(row_to_json((SELECT x FROM (SELECT ${v3 ? 'a.id AS "id", ' : ''}a.reference AS "reference", to_char(a.created_at AT TIME ZONE 'UTC', ${UTC_ISO}) AS "createdAt",
        a.status AS "status", a.amount AS "amount", a.raw AS "raw") x)) ORDER BY a.seq DESC)
      FROM payments_adjustments a WHERE a.payment_id = p.id), '[]'::json) AS "adjustments",
    p.metadata AS "metadata") r))::text`;

/**
 * Op 7 as wire JSON: each item is one payment's JSON text (see paymentJson) and the fields its cursor needs, read as
 * text and turned into values only for the two rows that sign cursors (a Date per row is measurable on 1000 rows).
 * `v3`: Formance's V3Payment (see presentPayments).
 */
export async function listPaymentsJson(db: Executor, filters: PaymentsFilters, page: PageRequest, options: { v3?: boolean } = {}): Promise<Page<{ json: string; sort: () => PaymentSortFields }>> {
  const select = db('payments_payments as p')
    .join('payments_connectors as c', 'c.id', 'p.connector_id')
    .select('p.id', 'p.reference', 'p.status', 'p.type', 'p.asset', 'p.scheme', db.raw(`to_char(p.created_at AT TIME ZONE 'UTC', ${UTC_ISO}) AS created_at`))
    .select(db.raw('p.amount::text AS amount'), db.raw('p.initial_amount::text AS initial_amount'), db.raw(`${paymentJson(options.v3 ?? false)} AS json`));
  const { rows, more, backwards } = await pagedRows(db, filters, page, select);
  const items = rows.map((r) => ({
    json: r.json as string,
    sort: (): PaymentSortFields => ({ id: r.id, reference: r.reference, status: r.status, type: r.type, asset: r.asset, scheme: r.scheme, createdAt: new Date(r.created_at), amount: BigInt(r.amount), initialAmount: BigInt(r.initial_amount) }),
  }));
  if (backwards) return { items: items.reverse(), hasNext: true, hasPrevious: more };
  return { items, hasNext: more, hasPrevious: page.position !== undefined };
}

/**
 * Filters by `query`, orders by `sort` and pages by keyset. Each sort key may have its own direction, so the "after
 * this row" condition is the lexicographic OR-chain `(k1 > v1) OR (k1 = v1 AND k2 < v2) OR ...`.
 * Throws VALIDATION (sort, query or cursor).
 */
async function pagedRows(db: Executor, filters: PaymentsFilters, page: PageRequest, query: ReturnType<typeof paymentsQuery>) {
  const keys = parseSort(filters.sort);
  const condition = filters.query !== undefined ? compilePaymentsQuery(filters.query) : undefined;
  const backwards = page.position?.dir === 'prev';
  const flip = (dir: 'asc' | 'desc') => (backwards ? (dir === 'asc' ? 'desc' : 'asc') : dir);
  if (condition) query.whereRaw(condition.sql, condition.bindings as any[]);
  if (page.position) {
    const values = page.position.key.map((v) => String(v));
    if (values.length !== keys.length) throw validationError('invalid cursor: it does not match the sort of this list');
    const branches = keys.map((k, i) => {
      const equal = keys.slice(0, i).map((e) => `${e.sql} = ?`);
      return `(${[...equal, `${k.sql} ${flip(k.dir) === 'asc' ? '>' : '<'} ?`].join(' AND ')})`;
    });
    const bindings = keys.flatMap((_k, i) => values.slice(0, i + 1));
    query.whereRaw(`(${branches.join(' OR ')})`, bindings);
  }
  for (const k of keys) query.orderBy(k.sql, flip(k.dir));
  const rows: any[] = await query.limit(page.pageSize + 1);
  return { rows: rows.slice(0, page.pageSize), more: rows.length > page.pageSize, backwards };
}
