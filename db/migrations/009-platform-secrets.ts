import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * Platform secrets: random keys every process of a deployment shares and that survive restarts. The first one signs
 * list cursors, so a cursor issued by one API replica is accepted by the others.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('platform_secrets', (t) => {
    t.text('name').primary();
    t.binary('value').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex('platform_secrets').insert({ name: 'cursor-signing-key', value: randomBytes(32) });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('platform_secrets');
}
