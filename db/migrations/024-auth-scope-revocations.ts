import type { Knex } from 'knex';

/**
 * Narrowing a client's scopes revokes the tokens it was issued before (areas/auth/clients.ts). A client's
 * `scopes_version` goes up at each narrowing and every token names the version it was issued under; a `scopes`
 * revocation (subject `<version>:<clientId>`) refuses the tokens of a version that ended.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE auth_clients ADD COLUMN IF NOT EXISTS scopes_version integer NOT NULL DEFAULT 0;
    ALTER TABLE auth_token_revocations DROP CONSTRAINT IF EXISTS auth_token_revocations_kind;
    ALTER TABLE auth_token_revocations ADD CONSTRAINT auth_token_revocations_kind CHECK (kind IN ('client', 'secret', 'token', 'scopes'));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DELETE FROM auth_token_revocations WHERE kind = 'scopes';
    ALTER TABLE auth_token_revocations DROP CONSTRAINT IF EXISTS auth_token_revocations_kind;
    ALTER TABLE auth_token_revocations ADD CONSTRAINT auth_token_revocations_kind CHECK (kind IN ('client', 'secret', 'token'));
    ALTER TABLE auth_clients DROP COLUMN IF EXISTS scopes_version;
  `);
}
