import type { Knex } from 'knex';

/** The outbox every area writes its events to, and the idempotency keys every creating endpoint honours. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('events_outbox', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.bigIncrements('seq', { primaryKey: false }).unique();
    t.text('app').notNullable();
    t.text('type').notNullable();
    t.text('version').notNullable().defaultTo('v2');
    t.timestamp('date', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Text, not jsonb: the payload is written and read back byte for byte, big integers included.
    t.text('payload').notNullable();
    t.timestamp('dispatched_at', { useTz: true });
  });
  await knex.raw('CREATE INDEX events_outbox_pending ON events_outbox (seq) WHERE dispatched_at IS NULL');

  await knex.schema.createTable('idempotency_keys', (t) => {
    t.text('scope').notNullable();
    t.text('key').notNullable();
    t.text('request_hash').notNullable();
    t.text('response').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['scope', 'key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('idempotency_keys');
  await knex.schema.dropTable('events_outbox');
}
