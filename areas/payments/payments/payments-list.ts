import { validationError } from '../../../lib/errors';
import type { Executor } from '../../../db/knex';
import { isoTimestampText } from '../../../db/json-sql';
import type { Knex } from 'knex';
import { pageKeys, renderedPage, type JsonPage, type PageKey, type PageRequest } from '../../../db/pagination';
import { PAYMENT_SHAPES } from './payment-shapes';
import { compilePaymentsQuery } from './payments-query';

/**
 * Sortable fields (`field:asc|desc`); `date` and `createdAt` are the same column. The id breaks ties. `key` is the
 * field as a cursor carries it (text: ISO 8601 dates, exact amounts), written by PostgreSQL.
 */
const SORT_COLUMNS: Record<string, { sql: string; key: string }> = {
  date: { sql: 'p.created_at', key: isoTimestampText('p.created_at') },
  createdAt: { sql: 'p.created_at', key: isoTimestampText('p.created_at') },
  amount: { sql: 'p.amount', key: 'p.amount::text' },
  initialAmount: { sql: 'p.initial_amount', key: 'p.initial_amount::text' },
  reference: { sql: 'p.reference', key: 'p.reference' },
  status: { sql: 'p.status', key: 'p.status' },
  type: { sql: 'p.type', key: 'p.type' },
  asset: { sql: 'p.asset', key: 'p.asset' },
  scheme: { sql: 'p.scheme', key: 'p.scheme' },
  id: { sql: 'p.id', key: 'p.id' },
};
export const SORT_FIELDS = Object.keys(SORT_COLUMNS);

export interface PaymentsFilters {
  sort?: string[];
  query?: string;
}
interface SortKey {
  field: string;
  sql: string;
  dir: 'asc' | 'desc';
}

/** `["amount:asc", "date:desc"]` or `["amount:asc,date:desc"]`; default `date:desc`. Throws VALIDATION. */
export function parseSort(sort: string[] | undefined): SortKey[] {
  const items = (sort ?? [])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  const keys = (items.length ? items : ['date:desc']).map((item) => {
    const [field, dir = 'asc', ...rest] = item.split(':');
    const column = Object.hasOwn(SORT_COLUMNS, field) ? SORT_COLUMNS[field] : undefined;
    if (!column || rest.length || (dir !== 'asc' && dir !== 'desc')) {
      throw validationError(`query.sort: "${item}" is not <field>:asc|desc with a field among ${SORT_FIELDS.join(', ')}`);
    }
    return { field, sql: column.sql, dir: dir as 'asc' | 'desc' };
  });
  if (!keys.some((k) => k.field === 'id')) keys.push({ field: 'id', sql: 'p.id', dir: keys[keys.length - 1].dir });
  return keys;
}

/** A payment's wire JSON written by PostgreSQL, from its shape (payment-shapes.ts). */
const PAYMENT_JSON = { v1: PAYMENT_SHAPES.v1.sql(), v3: PAYMENT_SHAPES.v3.sql() };

/**
 * Op 7 as wire JSON: PostgreSQL renders each payment (PAYMENT_JSON) and joins the page's items into one text
 * (renderedPage). `v3`: Formance's V3Payment (see presentPayments).
 */
export function listPaymentsJson(db: Executor, filters: PaymentsFilters, page: PageRequest, options: { v3?: boolean } = {}): Promise<JsonPage> {
  const keys = parseSort(filters.sort);
  const select = db('payments_payments as p')
    .join('payments_connectors as c', 'c.id', 'p.connector_id')
    .select(
      db.raw(`${PAYMENT_JSON[options.v3 ? 'v3' : 'v1']} AS json`),
      db.raw(`json_build_array(${keys.map((k) => SORT_COLUMNS[k.field].key).join(', ')})::text AS sort_key`),
    );
  const order = pageKeys(
    keys.map((k): PageKey => ({ column: k.sql, dir: k.dir })),
    page,
  );
  return renderedPage(db, pagedQuery(filters, page, keys, order, select), page, order);
}

/**
 * Filters by `query`, orders by `order` (the sort `keys` in the page's direction) and pages by keyset, up to one row
 * past the page (to know whether there is a next one). Each sort key may have its own direction, so the "after this row" condition is the lexicographic OR-chain
 * `(k1 > v1) OR (k1 = v1 AND k2 < v2) OR ...`. Throws VALIDATION (sort, query or cursor).
 */
function pagedQuery(filters: PaymentsFilters, page: PageRequest, keys: SortKey[], order: PageKey[], query: Knex.QueryBuilder): Knex.QueryBuilder {
  const condition = filters.query !== undefined ? compilePaymentsQuery(filters.query) : undefined;
  if (condition) query.whereRaw(condition.sql, condition.bindings as any[]);
  if (page.position) {
    const values = page.position.key.map((v) => String(v));
    if (values.length !== keys.length) throw validationError('invalid cursor: it does not match the sort of this list');
    const branches = keys.map((k, i) => {
      const equal = keys.slice(0, i).map((e) => `${e.sql} = ?`);
      return `(${[...equal, `${k.sql} ${order[i].dir === 'asc' ? '>' : '<'} ?`].join(' AND ')})`;
    });
    const bindings = keys.flatMap((_k, i) => values.slice(0, i + 1));
    query.whereRaw(`(${branches.join(' OR ')})`, bindings);
  }
  for (const key of order) query.orderBy(key.column, key.dir);
  return query.limit(page.pageSize + 1);
}
