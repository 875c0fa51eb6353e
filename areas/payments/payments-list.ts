import { validationError } from '../../lib/errors';
import type { Executor } from '../../db/knex';
import { isoTimestampText } from '../../db/json-sql';
import type { Knex } from 'knex';
import { pageKeys, renderedPage, type JsonPage, type PageKey, type PageRequest } from '../../db/pagination';
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

/**
 * A payment rendered to its wire JSON by PostgreSQL, member for member as presentPayments and stringifyJson write it
 * (amounts as exact numbers, dates as ISO 8601 in UTC with milliseconds, adjustments newest first).
 */
const paymentJson = (v3: boolean) => `row_to_json((SELECT r FROM (SELECT
    p.id AS "id", p.reference AS "reference", ${v3 ? 'p.source_account_id' : "coalesce(p.source_account_id, '')"} AS "sourceAccountID",
    ${v3 ? 'p.destination_account_id' : "coalesce(p.destination_account_id, '')"} AS "destinationAccountID", p.connector_id AS "connectorID", upper(c.provider) AS "provider",
    p.type AS "type", p.status AS "status", p.initial_amount AS "initialAmount", p.amount AS "amount", p.scheme AS "scheme",
    p.asset AS "asset", ${isoTimestampText('p.created_at')} AS "createdAt", p.raw AS "raw",
    coalesce((SELECT json_agg(row_to_json((SELECT x FROM (SELECT ${v3 ? 'a.id AS "id", ' : ''}a.reference AS "reference", ${isoTimestampText('a.created_at')} AS "createdAt",
        a.status AS "status", a.amount AS "amount", a.raw AS "raw") x)) ORDER BY a.seq DESC)
      FROM payments_adjustments a WHERE a.payment_id = p.id), '[]'::json) AS "adjustments",
    p.metadata AS "metadata") r))::text`;

/**
 * Op 7 as wire JSON: PostgreSQL renders each payment (paymentJson) and joins the page's items into one text
 * (renderedPage). `v3`: Formance's V3Payment (see presentPayments).
 */
export function listPaymentsJson(db: Executor, filters: PaymentsFilters, page: PageRequest, options: { v3?: boolean } = {}): Promise<JsonPage> {
  const keys = parseSort(filters.sort);
  const select = db('payments_payments as p')
    .join('payments_connectors as c', 'c.id', 'p.connector_id')
    .select(
      db.raw(`${paymentJson(options.v3 ?? false)} AS json`),
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
