import type { Knex } from 'knex';

/**
 * Reconciliation's classic model (areas/reconciliation/policies): policies and the reconciliations run on them, and
 * what their point-in-time reads need from payments: the history of every balance a connector fetched.
 *
 * `payments_balance_history` is written by a trigger on `payments_balances`, so every writer of a balance (fetches,
 * open-banking deletes, future ones) records it without knowing about reconciliation; a deleted balance is a row with
 * a NULL balance (it no longer exists from then on). Existing balances are backfilled as known since their last update.
 * Reconciliation results keep their policy's id without a foreign key: deleting a policy leaves its history readable.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS reconciliation_policies (
      id uuid PRIMARY KEY,
      name text NOT NULL,
      ledger_name text NOT NULL,
      ledger_query jsonb NOT NULL,
      payments_pool_id text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX IF NOT EXISTS reconciliation_policies_created ON reconciliation_policies (created_at DESC, id DESC);

    CREATE TABLE IF NOT EXISTS reconciliation_results (
      id uuid PRIMARY KEY,
      policy_id uuid NOT NULL,
      created_at timestamptz NOT NULL,
      reconciled_at_ledger timestamptz NOT NULL,
      reconciled_at_payments timestamptz NOT NULL,
      status text NOT NULL,
      ledger_balances jsonb NOT NULL,
      payments_balances jsonb NOT NULL,
      drift_balances jsonb NOT NULL,
      error text
    );
    CREATE INDEX IF NOT EXISTS reconciliation_results_created ON reconciliation_results (created_at DESC, id DESC);

    CREATE TABLE IF NOT EXISTS payments_balance_history (
      seq bigserial PRIMARY KEY,
      account_id text NOT NULL,
      asset text NOT NULL,
      balance numeric,
      at timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS payments_balance_history_at ON payments_balance_history (account_id, asset, at DESC, seq DESC);

    CREATE OR REPLACE FUNCTION payments_balances_record_history() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        INSERT INTO payments_balance_history (account_id, asset, balance, at) VALUES (OLD.account_id, OLD.asset, NULL, now());
        RETURN OLD;
      END IF;
      IF TG_OP = 'UPDATE' AND NEW.balance = OLD.balance THEN RETURN NEW; END IF;
      INSERT INTO payments_balance_history (account_id, asset, balance, at) VALUES (NEW.account_id, NEW.asset, NEW.balance, now());
      RETURN NEW;
    END $$;
    DROP TRIGGER IF EXISTS payments_balances_history ON payments_balances;
    CREATE TRIGGER payments_balances_history AFTER INSERT OR UPDATE OF balance OR DELETE ON payments_balances
      FOR EACH ROW EXECUTE FUNCTION payments_balances_record_history();

    INSERT INTO payments_balance_history (account_id, asset, balance, at)
      SELECT account_id, asset, balance, last_updated_at FROM payments_balances
      WHERE NOT EXISTS (SELECT 1 FROM payments_balance_history);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER IF EXISTS payments_balances_history ON payments_balances;
    DROP FUNCTION IF EXISTS payments_balances_record_history();
    DROP TABLE IF EXISTS payments_balance_history;
    DROP TABLE IF EXISTS reconciliation_results;
    DROP TABLE IF EXISTS reconciliation_policies;
  `);
}
