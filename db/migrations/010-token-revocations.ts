import type { Knex } from 'knex';

/**
 * Revoked access tokens of the embedded issuer: by client (a deleted client), by client secret (a deleted secret) and
 * by token id (RFC 7009 revocation). Every API process mirrors this table in memory (api/auth/revocation-list.ts) and
 * reads only the rows after the last `seq` it has seen, so a row lives here only until the tokens it refuses have
 * expired (`expires_at`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('auth_token_revocations', (t) => {
    t.bigIncrements('seq').primary();
    t.text('kind').notNullable();
    t.text('subject').notNullable();
    t.text('client_id').notNullable();
    t.timestamp('revoked_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true, precision: 3 }).notNullable();
    t.unique(['kind', 'subject']);
    t.index(['expires_at']);
  });
  await knex.raw(`ALTER TABLE auth_token_revocations ADD CONSTRAINT auth_token_revocations_kind CHECK (kind IN ('client', 'secret', 'token'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('auth_token_revocations');
}
