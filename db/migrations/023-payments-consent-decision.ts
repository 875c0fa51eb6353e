import type { Knex } from 'knex';

/**
 * The end user's decision on a consent link, recorded once: the first decision sets it under the attempt's row lock and
 * every later one finds it set (409), even while the completion it started still runs and the attempt is pending.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE payments_psu_link_attempts
      ADD COLUMN IF NOT EXISTS decision text CHECK (decision IN ('approve', 'reject')),
      ADD COLUMN IF NOT EXISTS decided_at timestamptz
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE payments_psu_link_attempts DROP COLUMN IF EXISTS decided_at, DROP COLUMN IF EXISTS decision');
}
