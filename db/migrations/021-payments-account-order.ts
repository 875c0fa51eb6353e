import type { Knex } from 'knex';

/**
 * The account lists (v3 and v1) page newest first by (created_at, id), as the payments list does with its own index.
 * Without one, every page sorted all of the accounts and wrote the cursor key of each (a to_char per row): 3.3 of the
 * 3.9 ms a page of 15 cost PostgreSQL over 2,000 accounts, and it grows with the table.
 * The build blocks writes to the accounts table while it runs (a fetch cycle waits for it). On a table of millions of
 * accounts, build it beforehand with CREATE INDEX CONCURRENTLY under the same name: the migration then does nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX IF NOT EXISTS payments_accounts_created ON payments_accounts (created_at DESC, id DESC)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS payments_accounts_created');
}
