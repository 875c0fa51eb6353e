import type { Knex } from 'knex';

/**
 * The trace id of an audited request (areas/auth/audit.ts), when the API traced it: an entry leads to its trace.
 * Nullable: entries of an API running without tracing, and every entry written before, have none. Adding a nullable
 * column without a default rewrites no row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE audit_entries ADD COLUMN IF NOT EXISTS trace_id text');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE audit_entries DROP COLUMN IF EXISTS trace_id');
}
