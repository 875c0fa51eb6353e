import type { Knex } from 'knex';

/**
 * Formance's ledger replication: exporters (a driver and its configuration, shared by every ledger) and pipelines (one
 * ledger's logs replicated to one exporter). A pipeline's position is `last_log_id`, the last log the target is known
 * to hold (-1: none); the pipeline's workflow advances it after each delivered batch, so a restarted workflow resumes
 * there. At most one pipeline per (ledger, exporter), as Formance.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ledger_exporters', (t) => {
    t.uuid('id').primary();
    t.text('driver').notNullable();
    t.jsonb('config').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('ledger_pipelines', (t) => {
    t.uuid('id').primary();
    t.text('ledger').notNullable().references('name').inTable('ledgers');
    t.uuid('exporter_id').notNullable().references('id').inTable('ledger_exporters');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.bigInteger('last_log_id').notNullable().defaultTo(-1);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['ledger', 'exporter_id']);
  });
  await knex.raw('CREATE INDEX ledger_pipelines_exporter ON ledger_pipelines (exporter_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('ledger_pipelines');
  await knex.schema.dropTable('ledger_exporters');
}
