import type { Knex } from 'knex';

/**
 * Signed checkpoints of the ledger log chain (areas/ledger/logs/log-signing.ts): the hasher signs the chain head every
 * 100 logs with the platform's Ed25519 key, so a chain re-hashed end to end by someone without the key no longer
 * verifies. `ledger_log_chain.checkpoints_from` is the first log the hasher signs: logs hashed before this migration
 * have no checkpoint, and `verify` must not call them broken.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ledger_log_checkpoints', (t) => {
    t.text('ledger').notNullable();
    t.bigInteger('log_id').notNullable();
    t.text('key_id').notNullable();
    t.binary('signature').notNullable();
    t.primary(['ledger', 'log_id']);
  });
  await knex.raw('ALTER TABLE ledger_log_chain ADD COLUMN checkpoints_from bigint NOT NULL DEFAULT 0');
  await knex.raw('UPDATE ledger_log_chain SET checkpoints_from = hashed_through + 1');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE ledger_log_chain DROP COLUMN checkpoints_from');
  await knex.schema.dropTable('ledger_log_checkpoints');
}
