import type { Knex } from 'knex';

/**
 * Payments: connectors and what they fetch (accounts, balances, payments with their adjustments), bank accounts,
 * payment service users, pools and payment initiations. Ids of provider-side objects are deterministic (derived from the
 * connector and the provider's reference), so a refetch upserts the same row instead of creating a duplicate.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE payments_connectors (
      id text PRIMARY KEY,
      provider text NOT NULL,
      name text NOT NULL,
      config jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      uninstalled_at timestamptz
    );
    -- A name identifies an installed connector; an uninstalled one frees its name but keeps its history.
    CREATE UNIQUE INDEX payments_connectors_name ON payments_connectors (name) WHERE uninstalled_at IS NULL;

    CREATE TABLE payments_accounts (
      id text PRIMARY KEY,
      connector_id text NOT NULL REFERENCES payments_connectors (id),
      reference text NOT NULL,
      type text NOT NULL,
      name text,
      default_asset text,
      created_at timestamptz NOT NULL,
      metadata jsonb NOT NULL DEFAULT '{}',
      raw jsonb NOT NULL DEFAULT '{}',
      UNIQUE (connector_id, reference)
    );

    CREATE TABLE payments_balances (
      account_id text NOT NULL REFERENCES payments_accounts (id),
      asset text NOT NULL,
      balance numeric NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (account_id, asset)
    );

    CREATE TABLE payments_payments (
      id text PRIMARY KEY,
      connector_id text NOT NULL REFERENCES payments_connectors (id),
      reference text NOT NULL,
      type text NOT NULL,
      status text NOT NULL,
      scheme text NOT NULL,
      asset text NOT NULL,
      initial_amount numeric NOT NULL,
      amount numeric NOT NULL,
      source_account_id text,
      destination_account_id text,
      created_at timestamptz NOT NULL,
      raw jsonb NOT NULL DEFAULT '{}',
      metadata jsonb NOT NULL DEFAULT '{}',
      UNIQUE (connector_id, reference)
    );
    CREATE INDEX payments_payments_created ON payments_payments (created_at DESC, id DESC);

    CREATE TABLE payments_adjustments (
      id text PRIMARY KEY,
      payment_id text NOT NULL REFERENCES payments_payments (id),
      reference text NOT NULL,
      created_at timestamptz NOT NULL,
      status text NOT NULL,
      amount numeric NOT NULL,
      raw jsonb NOT NULL DEFAULT '{}',
      seq bigserial NOT NULL
    );
    CREATE INDEX payments_adjustments_payment ON payments_adjustments (payment_id, seq);

    CREATE TABLE payments_bank_accounts (
      id uuid PRIMARY KEY,
      name text NOT NULL,
      country text,
      iban text,
      account_number text,
      swift_bic_code text,
      created_at timestamptz NOT NULL DEFAULT now(),
      metadata jsonb NOT NULL DEFAULT '{}'
    );

    CREATE TABLE payments_bank_account_related_accounts (
      bank_account_id uuid NOT NULL REFERENCES payments_bank_accounts (id) ON DELETE CASCADE,
      connector_id text NOT NULL REFERENCES payments_connectors (id),
      account_id text NOT NULL REFERENCES payments_accounts (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (bank_account_id, connector_id)
    );

    CREATE TABLE payments_psus (
      id uuid PRIMARY KEY,
      name text NOT NULL,
      contact_details jsonb,
      address jsonb,
      metadata jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE payments_psu_bank_accounts (
      psu_id uuid NOT NULL REFERENCES payments_psus (id) ON DELETE CASCADE,
      bank_account_id uuid NOT NULL REFERENCES payments_bank_accounts (id),
      PRIMARY KEY (psu_id, bank_account_id)
    );

    CREATE TABLE payments_pools (
      id uuid PRIMARY KEY,
      name text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE payments_pool_accounts (
      pool_id uuid NOT NULL REFERENCES payments_pools (id) ON DELETE CASCADE,
      account_id text NOT NULL REFERENCES payments_accounts (id),
      PRIMARY KEY (pool_id, account_id)
    );

    CREATE TABLE payments_initiations (
      id text PRIMARY KEY,
      connector_id text NOT NULL REFERENCES payments_connectors (id),
      reference text NOT NULL,
      type text NOT NULL,
      amount numeric NOT NULL,
      asset text NOT NULL,
      source_account_id text REFERENCES payments_accounts (id),
      destination_account_id text NOT NULL REFERENCES payments_accounts (id),
      description text NOT NULL DEFAULT '',
      metadata jsonb NOT NULL DEFAULT '{}',
      scheduled_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      -- Denormalised from the last adjustment, under the row lock every transition takes.
      status text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      error text,
      UNIQUE (connector_id, reference)
    );

    CREATE TABLE payments_initiation_adjustments (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      payment_initiation_id text NOT NULL REFERENCES payments_initiations (id) ON DELETE CASCADE,
      status text NOT NULL,
      error text,
      metadata jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      seq bigserial NOT NULL
    );
    CREATE INDEX payments_initiation_adjustments_pi ON payments_initiation_adjustments (payment_initiation_id, seq);

    CREATE TABLE payments_initiation_payments (
      payment_initiation_id text NOT NULL REFERENCES payments_initiations (id) ON DELETE CASCADE,
      payment_id text NOT NULL REFERENCES payments_payments (id),
      PRIMARY KEY (payment_initiation_id, payment_id)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE payments_initiation_payments, payments_initiation_adjustments, payments_initiations,
      payments_pool_accounts, payments_pools, payments_psu_bank_accounts, payments_psus,
      payments_bank_account_related_accounts, payments_bank_accounts, payments_adjustments, payments_payments,
      payments_balances, payments_accounts, payments_connectors;
  `);
}
