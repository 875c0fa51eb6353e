import type { Knex } from 'knex';

/**
 * A transaction's members that no write changes once it is inserted, stored as the JSON text the reads by txid
 * write: `json_head` is `"timestamp":…,"postings":…` and `json_volumes` is `"preCommitVolumes":…,"postCommitVolumes":…`
 * (areas/ledger/transaction-json.ts, decision 33). Writing them out at each read (the timestamp through to_char, three
 * json columns cast to text) was half of what a read by txid cost PostgreSQL.
 *
 * Nullable, and nothing is backfilled: a row without them is written out at each read as before, so the migration
 * only adds columns (no rewrite, no long lock) and a row of the previous release reads the same. The trigger keeps
 * the stored text from ever disagreeing with its row: an UPDATE that names one of the members' columns clears it.
 * No code updates them today (a transaction's metadata and its revert are other columns); the trigger is what
 * guarantees that one that does later cannot serve stale JSON.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE ledger_transactions ADD COLUMN IF NOT EXISTS json_head text, ADD COLUMN IF NOT EXISTS json_volumes text;
    CREATE OR REPLACE FUNCTION ledger_transactions_clear_json_parts() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.json_head := NULL;
      NEW.json_volumes := NULL;
      RETURN NEW;
    END
    $$;
    DROP TRIGGER IF EXISTS ledger_transactions_json_parts ON ledger_transactions;
    CREATE TRIGGER ledger_transactions_json_parts
      BEFORE UPDATE OF timestamp, postings, pre_commit_volumes, post_commit_volumes ON ledger_transactions
      FOR EACH ROW EXECUTE FUNCTION ledger_transactions_clear_json_parts();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER IF EXISTS ledger_transactions_json_parts ON ledger_transactions;
    DROP FUNCTION IF EXISTS ledger_transactions_clear_json_parts();
    ALTER TABLE ledger_transactions DROP COLUMN IF EXISTS json_head, DROP COLUMN IF EXISTS json_volumes;
  `);
}
