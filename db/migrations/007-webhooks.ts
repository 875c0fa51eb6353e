import type { Knex } from 'knex';

/**
 * Webhook configs, one delivery per (event, config), and every attempt of every delivery. Timestamps are stored to the
 * millisecond, the precision of a JavaScript Date, so a keyset cursor built from a row's date finds that row again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_configs', (t) => {
    t.uuid('id').primary();
    t.text('endpoint').notNullable();
    t.text('secret').notNullable();
    // Kept for a grace period after a secret change so receivers still on the old secret keep verifying.
    t.text('previous_secret');
    t.timestamp('previous_secret_until', { useTz: true, precision: 3 });
    t.specificType('event_types', 'text[]').notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.text('name').notNullable().defaultTo('');
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE INDEX webhook_configs_event_types ON webhook_configs USING gin (event_types) WHERE active');
  await knex.raw('CREATE INDEX webhook_configs_updated ON webhook_configs (updated_at DESC, id DESC)');

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.uuid('id').primary();
    t.uuid('event_id').notNullable();
    // No foreign key: deliveries (and their attempts) outlive a deleted config as an audit trail.
    t.uuid('config_id').notNullable();
    t.text('event_type').notNullable();
    t.text('endpoint').notNullable();
    // The exact bytes sent, so every retry and replay signs and sends the same body.
    t.text('payload').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('replays').notNullable().defaultTo(0);
    t.integer('last_status_code');
    t.text('last_error');
    t.timestamp('next_retry_at', { useTz: true, precision: 3 });
    t.timestamp('run_started_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.unique(['event_id', 'config_id']);
  });
  await knex.raw('CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at DESC, id DESC)');
  await knex.raw('CREATE INDEX webhook_deliveries_config ON webhook_deliveries (config_id, created_at DESC, id DESC)');

  await knex.schema.createTable('webhook_attempts', (t) => {
    t.uuid('id').primary();
    t.uuid('delivery_id').notNullable().references('id').inTable('webhook_deliveries').onDelete('CASCADE');
    t.bigIncrements('seq', { primaryKey: false }).unique();
    t.integer('retry_attempt').notNullable();
    t.integer('status_code').notNullable();
    t.text('status').notNullable();
    t.text('error');
    t.jsonb('config').notNullable();
    t.timestamp('next_retry_after', { useTz: true, precision: 3 });
    t.integer('duration_ms').notNullable();
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, seq)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_attempts');
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.dropTable('webhook_configs');
}
