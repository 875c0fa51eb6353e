import type { Knex } from 'knex';

/**
 * Event batches: the dispatcher hands subscribed outbox rows to Temporal in batches, one `processEventBatch` workflow
 * each. A row's batch (the id of the batch's first event) is committed before the workflow starts, so after a crash
 * the same rows are started again under the same workflow id: never lost, never fanned out twice.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events_outbox', (t) => {
    t.uuid('batch_id');
  });
  // Only batches claimed but not yet started are looked up by batch: a small, short-lived set.
  await knex.raw('CREATE INDEX events_outbox_batch ON events_outbox (batch_id) WHERE dispatched_at IS NULL AND batch_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX events_outbox_batch');
  await knex.schema.alterTable('events_outbox', (t) => {
    t.dropColumn('batch_id');
  });
}
