import type { Knex } from 'knex';

/** Where a page starts: strictly after (`next`) or strictly before (`prev`) the row whose sort key is `key`. */
export interface Position {
  key: unknown[];
  dir: 'next' | 'prev';
}

export interface PageRequest {
  pageSize: number;
  position?: Position;
}

/** A list request as the database sees it: the list's filters, its page size and where the page starts. */
export interface ListQuery<F = Record<string, unknown>> extends PageRequest {
  filters: F;
}

export interface Page<T> {
  items: T[];
  hasNext: boolean;
  hasPrevious: boolean;
}

/** A page whose items the database rendered: their JSON joined by commas, and the sort keys of the first and last. */
export interface JsonPage {
  json: string;
  firstKey?: unknown[];
  lastKey?: unknown[];
  hasNext: boolean;
  hasPrevious: boolean;
}

/**
 * Keyset pagination over `columns` (all sorted in `order`, the last one unique). Unlike offsets, a page boundary is a
 * row, so rows inserted while a client pages through a list are neither skipped nor shown twice.
 */
export async function keysetPage<T>(
  query: Knex.QueryBuilder,
  columns: string[],
  order: 'asc' | 'desc',
  request: PageRequest,
): Promise<Page<T>> {
  const backwards = request.position?.dir === 'prev';
  const effectiveOrder = backwards ? (order === 'asc' ? 'desc' : 'asc') : order;
  if (request.position) {
    const op = effectiveOrder === 'desc' ? '<' : '>';
    const tuple = columns.map(() => '??').join(', ');
    const values = columns.map(() => '?').join(', ');
    query.whereRaw(`(${tuple}) ${op} (${values})`, [...columns, ...(request.position.key as Knex.RawBinding[])]);
  }
  for (const column of columns) query.orderBy(column, effectiveOrder);
  const rows = (await query.limit(request.pageSize + 1)) as T[];
  const more = rows.length > request.pageSize;
  const items = rows.slice(0, request.pageSize);
  if (backwards) return { items: items.reverse(), hasNext: true, hasPrevious: more };
  return { items, hasNext: more, hasPrevious: request.position !== undefined };
}

/** How many rows `query` matches (the count behind a list's HEAD). */
export async function countRows(query: Knex.QueryBuilder): Promise<number> {
  const row = await query.count<{ count: string }>('* as count').first();
  return Number(row?.count ?? 0);
}
