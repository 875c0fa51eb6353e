import type { Knex } from 'knex';

/** Rows per upsert statement: big enough that round trips stop mattering, small enough to keep each statement short. */
export const UPSERT_BATCH = 500;

/**
 * Splits `items` in order into batches of at most `size` in which no key repeats. An `INSERT ... ON CONFLICT DO
 * UPDATE` may not touch one row twice, and a provider view may list one object twice (two states of a payment): the
 * second occurrence then starts a new batch, which upserts it after the first, as one-by-one upserts would.
 */
export function distinctBatches<T>(items: T[], key: (item: T) => string, size = UPSERT_BATCH): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let keys = new Set<string>();
  for (const item of items) {
    const k = key(item);
    if (current.length >= size || keys.has(k)) {
      batches.push(current);
      current = [];
      keys = new Set();
    }
    current.push(item);
    keys.add(k);
  }
  if (current.length) batches.push(current);
  return batches;
}

/** node-pg sends a null array element as NULL; knex's binding type only lists arrays without nulls. */
export const nullable = (values: Array<string | null>): Knex.Value => values as unknown as Knex.Value;
