import type { Knex } from 'knex';

/** OAuth 2.0 clients, their hashed secrets, the issuer's signing keys and oidc-provider's own short-lived records. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('auth_clients', (t) => {
    t.text('id').primary();
    t.text('name').notNullable().defaultTo('');
    t.text('description').notNullable().defaultTo('');
    t.boolean('public').notNullable().defaultTo(false);
    t.boolean('trusted').notNullable().defaultTo(false);
    t.jsonb('redirect_uris').notNullable().defaultTo('[]');
    t.jsonb('post_logout_redirect_uris').notNullable().defaultTo('[]');
    t.jsonb('scopes').notNullable().defaultTo('[]');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('auth_client_secrets', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('client_id').notNullable().references('id').inTable('auth_clients').onDelete('CASCADE');
    t.text('name').notNullable().defaultTo('');
    // SHA-256 of a 256-bit random secret: unguessable inputs need no slow hash, and the clear value is never stored.
    t.text('hash').notNullable();
    t.text('last_digits').notNullable();
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['client_id']);
  });
  await knex.schema.createTable('auth_signing_keys', (t) => {
    t.text('kid').primary();
    t.jsonb('private_jwk').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('auth_oidc_payloads', (t) => {
    t.text('model').notNullable();
    t.text('id').notNullable();
    t.jsonb('payload').notNullable();
    t.text('grant_id');
    t.text('uid');
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('consumed_at', { useTz: true });
    t.primary(['model', 'id']);
    t.index(['grant_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['auth_oidc_payloads', 'auth_signing_keys', 'auth_client_secrets', 'auth_clients']) await knex.schema.dropTable(table);
}
