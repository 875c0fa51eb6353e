import type { Knex } from 'knex';

/**
 * A transaction's timestamp and postings, which no write changes once it is inserted, stored as the JSON text the
 * reads by txid write for them: `json_head` is `"timestamp":…,"postings":…` (areas/ledger/reads/transaction-json.ts,
 * decision 33). Writing them out at each read (the timestamp through to_char, the postings cast to text) cost
 * PostgreSQL about 1.7 of the 9–10 µs of a read by txid.
 *
 * Nullable, and nothing is backfilled: a row without it is written out at each read as before, so the migration only
 * adds a column (no rewrite, no long lock) and a row of the previous release reads the same. The trigger keeps the
 * stored text from ever disagreeing with its row: an UPDATE that names the timestamp or the postings clears it. No code
 * updates them today (a transaction's metadata and its revert are other columns); the trigger is what guarantees that
 * one that does later cannot serve stale JSON. Row triggers do not fire for a table rewrite (ALTER COLUMN ... TYPE
 * ... USING, as migration 020 did to the postings): a later migration that rewrites the timestamp or the postings must
 * clear json_head itself.
 */
export async function up(knex: Knex): Promise<void> {
  // Behind a long transaction, the ALTER would queue every read and write of the table behind its lock: give up
  // instead, and let the operator run the migration again (docs/operations.md).
  await knex.raw(`
    SET LOCAL lock_timeout = '10s';
    ALTER TABLE ledger_transactions ADD COLUMN IF NOT EXISTS json_head text;
    CREATE OR REPLACE FUNCTION ledger_transactions_clear_json_head() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.json_head := NULL;
      RETURN NEW;
    END
    $$;
    DROP TRIGGER IF EXISTS ledger_transactions_json_head ON ledger_transactions;
    CREATE TRIGGER ledger_transactions_json_head
      BEFORE UPDATE OF timestamp, postings ON ledger_transactions
      FOR EACH ROW EXECUTE FUNCTION ledger_transactions_clear_json_head();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER IF EXISTS ledger_transactions_json_head ON ledger_transactions;
    DROP FUNCTION IF EXISTS ledger_transactions_clear_json_head();
    ALTER TABLE ledger_transactions DROP COLUMN IF EXISTS json_head;
  `);
}
