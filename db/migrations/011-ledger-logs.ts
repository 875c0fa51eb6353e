import type { Knex } from 'knex';

/**
 * The ledger's log (Formance's v2 logs): one row per change, written by the change's own transaction with `hash`
 * NULL. Log ids come from `ledgers.next_log_id`, bumped in the statement that already bumps `next_txid` (or, for a
 * metadata change, in the statement that inserts the log): the ledger row is the one lock a write holds to commit, so
 * an aborted write releases its number and ids stay dense without a second lock.
 * Hashes are filled in afterwards, in id order, by the hasher (areas/ledger/logs/log-hasher.ts); `ledger_log_chain` is its
 * per-ledger position (the last hashed id and its hash), a separate row so the hasher never waits on the writers' lock.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE ledgers ADD COLUMN next_log_id bigint NOT NULL DEFAULT 0');
  await knex.schema.createTable('ledger_logs', (t) => {
    t.text('ledger').notNullable();
    t.bigInteger('id').notNullable();
    t.text('type').notNullable();
    t.timestamp('date', { useTz: true, precision: 3 }).notNullable();
    t.jsonb('data').notNullable();
    t.binary('hash');
    t.primary(['ledger', 'id']);
  });
  await knex.raw(
    `ALTER TABLE ledger_logs ADD CONSTRAINT ledger_logs_type CHECK (type IN ('NEW_TRANSACTION', 'SET_METADATA', 'REVERTED_TRANSACTION', 'DELETE_METADATA'))`,
  );
  // The hasher's work list: small, since rows leave it as soon as they are hashed.
  await knex.raw('CREATE INDEX ledger_logs_unhashed ON ledger_logs (ledger, id) WHERE hash IS NULL');
  await knex.schema.createTable('ledger_log_chain', (t) => {
    t.text('ledger').primary();
    t.bigInteger('hashed_through').notNullable().defaultTo(-1);
    t.binary('last_hash');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('ledger_log_chain');
  await knex.schema.dropTable('ledger_logs');
  await knex.raw('ALTER TABLE ledgers DROP COLUMN next_log_id');
}
