import type { Knex } from 'knex';

/**
 * Formance v2's ledger surface beyond transactions: the features a ledger was created with (`features`, what the
 * creator asked for; the effective set is computed, areas/ledger/features.ts), the soft deletion of a bucket's ledgers
 * (`deleted_at`, undone by a restore), and the versioned schemas (chart of accounts and transaction templates) that
 * writes naming a version are checked against. A schema version is immutable: no update path exists.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ledgers', (t) => {
    t.jsonb('features').notNullable().defaultTo('{}');
    t.timestamp('deleted_at', { useTz: true }).nullable();
  });
  await knex.raw('CREATE INDEX ledgers_bucket ON ledgers (bucket)');
  await knex.schema.createTable('ledger_schemas', (t) => {
    // Insertion order, the key of the list's keyset pagination (created_at can tie).
    t.bigIncrements('seq').primary();
    t.text('ledger').notNullable().references('name').inTable('ledgers');
    t.text('version').notNullable();
    t.jsonb('data').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.unique(['ledger', 'version']);
  });
  // A schema insertion is a log of its own (Formance's INSERTED_SCHEMA).
  await knex.raw('ALTER TABLE ledger_logs DROP CONSTRAINT ledger_logs_type');
  await knex.raw(
    `ALTER TABLE ledger_logs ADD CONSTRAINT ledger_logs_type CHECK (type IN ('NEW_TRANSACTION', 'SET_METADATA', 'REVERTED_TRANSACTION', 'DELETE_METADATA', 'INSERTED_SCHEMA'))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DELETE FROM ledger_logs WHERE type = 'INSERTED_SCHEMA'`);
  await knex.raw('ALTER TABLE ledger_logs DROP CONSTRAINT ledger_logs_type');
  await knex.raw(
    `ALTER TABLE ledger_logs ADD CONSTRAINT ledger_logs_type CHECK (type IN ('NEW_TRANSACTION', 'SET_METADATA', 'REVERTED_TRANSACTION', 'DELETE_METADATA'))`,
  );
  await knex.schema.dropTable('ledger_schemas');
  await knex.raw('DROP INDEX ledgers_bucket');
  await knex.schema.alterTable('ledgers', (t) => {
    t.dropColumn('deleted_at');
    t.dropColumn('features');
  });
}
