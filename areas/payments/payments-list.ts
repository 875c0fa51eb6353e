import { validationError } from '../../lib/errors';
import type { Executor } from '../../db/knex';
import type { Page, PageRequest } from '../../db/pagination';
import { paymentsQuery, presentPayments, type Payment } from './payments';
import { compilePaymentsQuery } from './payments-query';

/** Sortable fields (`field:asc|desc`); `date` and `createdAt` are the same column. The id breaks ties. */
const SORT_COLUMNS: Record<string, { sql: string; key: (p: Payment) => string }> = {
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
  return (p: Payment): unknown[] => keys.map((k) => SORT_COLUMNS[k.field].key(p));
};

/**
 * Op 7: payments filtered by `query`, ordered by `sort`, paged by keyset. Each sort key may have its own direction,
 * so the "after this row" condition is the lexicographic OR-chain `(k1 > v1) OR (k1 = v1 AND k2 < v2) OR ...`.
 * Throws VALIDATION (sort or query).
 */
export async function listPayments(db: Executor, filters: PaymentsFilters, page: PageRequest): Promise<Page<Payment>> {
  const keys = parseSort(filters.sort);
  const condition = filters.query !== undefined ? compilePaymentsQuery(filters.query) : undefined;
  const backwards = page.position?.dir === 'prev';
  const flip = (dir: 'asc' | 'desc') => (backwards ? (dir === 'asc' ? 'desc' : 'asc') : dir);
  const query = paymentsQuery(db);
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
  const rows = await query.limit(page.pageSize + 1);
  const more = rows.length > page.pageSize;
  const items = await presentPayments(db, rows.slice(0, page.pageSize));
  if (backwards) return { items: items.reverse(), hasNext: true, hasPrevious: more };
  return { items, hasNext: more, hasPrevious: page.position !== undefined };
}
