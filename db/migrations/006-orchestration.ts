import type { Knex } from 'knex';

/**
 * Orchestration's read model. Temporal owns the execution and its history; these tables answer lists and reads fast
 * and are written by the API (definitions, instance creation) and by the instance workflow's activities (stages, end).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('orchestration_workflows', (t) => {
    t.uuid('id').primary();
    t.text('name').notNullable().defaultTo('');
    t.jsonb('config').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Soft delete: instances already started keep their workflow row (and its config) for reads.
    t.timestamp('deleted_at', { useTz: true });
    t.index(['created_at', 'id']);
  });
  await knex.schema.createTable('orchestration_instances', (t) => {
    t.uuid('id').primary();
    t.uuid('workflow_id').notNullable().references('id').inTable('orchestration_workflows');
    t.uuid('trigger_id');
    t.jsonb('variables').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.boolean('terminated').notNullable().defaultTo(false);
    t.timestamp('terminated_at', { useTz: true });
    t.text('error');
    t.index(['created_at', 'id']);
    t.index(['workflow_id', 'created_at', 'id']);
  });
  await knex.schema.createTable('orchestration_stage_statuses', (t) => {
    t.uuid('instance_id').notNullable().references('id').inTable('orchestration_instances').onDelete('CASCADE');
    t.integer('stage').notNullable();
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.timestamp('terminated_at', { useTz: true });
    t.text('error');
    t.primary(['instance_id', 'stage']);
  });
  await knex.schema.createTable('orchestration_triggers', (t) => {
    t.uuid('id').primary();
    t.uuid('workflow_id').notNullable().references('id').inTable('orchestration_workflows');
    t.text('name').notNullable().defaultTo('');
    t.text('event').notNullable();
    t.text('filter');
    t.jsonb('vars');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('deleted_at', { useTz: true });
    t.index(['event']);
    t.index(['created_at', 'id']);
  });
  await knex.schema.createTable('orchestration_trigger_occurrences', (t) => {
    t.uuid('id').primary();
    t.uuid('trigger_id').notNullable().references('id').inTable('orchestration_triggers');
    // One occurrence per (trigger, event): a re-delivered event does not start a second instance.
    t.text('event_id').notNullable();
    t.uuid('workflow_instance_id');
    t.jsonb('event').notNullable();
    t.text('error');
    t.timestamp('date', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['trigger_id', 'event_id']);
    t.index(['trigger_id', 'date', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'orchestration_trigger_occurrences',
    'orchestration_triggers',
    'orchestration_stage_statuses',
    'orchestration_instances',
    'orchestration_workflows',
  ]) {
    await knex.schema.dropTable(table);
  }
}
