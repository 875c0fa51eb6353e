import type { Knex } from 'knex';

/**
 * - `orchestration_instances.aborted_at`: the abort marker. The abort writes it before it answers, and every step of
 *   the instance that writes (moves money, sets metadata) reads it, under a share lock on the row, inside the database
 *   transaction of its own write: no write of an aborted instance can commit after its abort was answered
 *   (areas/orchestration/fence.ts).
 * - `orchestration_instances.causation`: the causation chain the instance's writes carry (JSON text), set at creation.
 * - `events_outbox.causation`: the chain of the orchestration instance whose step wrote the event, taken from the
 *   transaction-local setting `platform.causation` that the step's fence sets, so the ledger, wallets and every other
 *   writer stamp their events without knowing about it; NULL for every other write. Triggers read it to stop loops.
 * The columns are added without a default and the default set afterwards, so neither statement rewrites a table.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE orchestration_instances ADD COLUMN IF NOT EXISTS aborted_at timestamptz, ADD COLUMN IF NOT EXISTS causation text');
  await knex.raw('ALTER TABLE events_outbox ADD COLUMN IF NOT EXISTS causation text');
  await knex.raw(`ALTER TABLE events_outbox ALTER COLUMN causation SET DEFAULT nullif(current_setting('platform.causation', true), '')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE events_outbox DROP COLUMN IF EXISTS causation');
  await knex.raw('ALTER TABLE orchestration_instances DROP COLUMN IF EXISTS aborted_at, DROP COLUMN IF EXISTS causation');
}
