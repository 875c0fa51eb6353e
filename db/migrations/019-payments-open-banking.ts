import type { Knex } from 'knex';

/**
 * Formance v3's open banking for payment service users: the connectors a user was forwarded to, the link attempts
 * (one per consent flow, with the hash of its single-use consent token) and the bank connections a completed attempt
 * creates. Accounts and payments fetched through a connection carry its user and connection, so deleting the connection finds them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE payments_psu_connectors (
      psu_id uuid NOT NULL REFERENCES payments_psus (id) ON DELETE CASCADE,
      connector_id text NOT NULL REFERENCES payments_connectors (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (psu_id, connector_id)
    );

    CREATE TABLE payments_psu_connections (
      id text PRIMARY KEY,
      psu_id uuid NOT NULL,
      connector_id text NOT NULL,
      status text NOT NULL,
      error text,
      metadata jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      data_updated_at timestamptz NOT NULL DEFAULT now(),
      FOREIGN KEY (psu_id, connector_id) REFERENCES payments_psu_connectors (psu_id, connector_id) ON DELETE CASCADE
    );
    CREATE INDEX payments_psu_connections_list ON payments_psu_connections (psu_id, created_at DESC, id DESC);

    CREATE TABLE payments_psu_link_attempts (
      id uuid PRIMARY KEY,
      psu_id uuid NOT NULL,
      connector_id text NOT NULL,
      connection_id text REFERENCES payments_psu_connections (id) ON DELETE CASCADE,
      status text NOT NULL,
      client_redirect_url text NOT NULL,
      application_name text,
      token_hash text NOT NULL,
      error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      FOREIGN KEY (psu_id, connector_id) REFERENCES payments_psu_connectors (psu_id, connector_id) ON DELETE CASCADE
    );
    CREATE INDEX payments_psu_link_attempts_list ON payments_psu_link_attempts (psu_id, connector_id, created_at DESC, id DESC);

    ALTER TABLE payments_accounts ADD COLUMN psu_id uuid, ADD COLUMN open_banking_connection_id text;
    CREATE INDEX payments_accounts_connection ON payments_accounts (open_banking_connection_id) WHERE open_banking_connection_id IS NOT NULL;
    ALTER TABLE payments_payments ADD COLUMN psu_id uuid, ADD COLUMN open_banking_connection_id text;
    CREATE INDEX payments_payments_connection ON payments_payments (open_banking_connection_id) WHERE open_banking_connection_id IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX IF EXISTS payments_payments_connection, payments_accounts_connection;
    ALTER TABLE payments_payments DROP COLUMN IF EXISTS open_banking_connection_id, DROP COLUMN IF EXISTS psu_id;
    ALTER TABLE payments_accounts DROP COLUMN IF EXISTS open_banking_connection_id, DROP COLUMN IF EXISTS psu_id;
    DROP TABLE IF EXISTS payments_psu_link_attempts, payments_psu_connections, payments_psu_connectors;
  `);
}
