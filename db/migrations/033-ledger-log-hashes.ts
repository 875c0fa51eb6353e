import type { Knex } from 'knex';

/**
 * Log hashes move to a narrow insert-only table, `ledger_log_hashes` (ledger, id, hash), which the hasher
 * (areas/ledger/logs/log-hasher.ts) appends to behind the commit. Setting `ledger_logs.hash` in place rewrote each wide
 * log row (its jsonb data) a second time, as a non-HOT update since the unhashed-logs partial index covered `hash`,
 * leaving a dead wide tuple per log for vacuum; and every log insert maintained that index. A log row is now written
 * once and never updated. Which logs wait for the hasher is the ledger's log counter against the chain position
 * (`ledgers.next_log_id`, `ledger_log_chain.hashed_through`), so the partial index goes too. No foreign key, as the
 * other ledger log tables.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ledger_log_hashes', (t) => {
    t.text('ledger').notNullable();
    t.bigInteger('id').notNullable();
    t.binary('hash').notNullable();
    t.primary(['ledger', 'id']);
  });
  await knex.raw('INSERT INTO ledger_log_hashes (ledger, id, hash) SELECT ledger, id, hash FROM ledger_logs WHERE hash IS NOT NULL');
  await knex.raw('DROP INDEX ledger_logs_unhashed');
  // Dropping a column rewrites no row: the old values stay in the tuples until each row is next written.
  await knex.raw('ALTER TABLE ledger_logs DROP COLUMN hash');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE ledger_logs ADD COLUMN hash bytea');
  await knex.raw('UPDATE ledger_logs l SET hash = h.hash FROM ledger_log_hashes h WHERE h.ledger = l.ledger AND h.id = l.id');
  await knex.raw('CREATE INDEX ledger_logs_unhashed ON ledger_logs (ledger, id) WHERE hash IS NULL');
  await knex.schema.dropTable('ledger_log_hashes');
}
