import type { Knex } from 'knex';

/**
 * Formance v3's dynamic pools: a pool with a `query` (the accounts filter of the v3 account list) holds the INTERNAL
 * accounts that match it when it is read, instead of a fixed list; NULL is a static pool.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments_pools', (t) => {
    t.jsonb('query').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments_pools', (t) => {
    t.dropColumn('query');
  });
}
