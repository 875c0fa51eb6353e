import type { Knex } from 'knex';

/**
 * Formance v3's conversions and orders, fetched by connectors with FETCH_CONVERSIONS / FETCH_ORDERS and keyed like the
 * other provider data by (connector, reference), so a refetch upserts; an order keeps one adjustment per observed state.
 * Also the reversals of payment initiations (one row per reversal, its reference unique per connector as Formance's
 * reversal id is) and the amount of an initiation adjustment, which a reversal adjustment carries.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE payments_conversions (
      id text PRIMARY KEY,
      connector_id text NOT NULL REFERENCES payments_connectors (id),
      reference text NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      status text NOT NULL,
      source_asset text NOT NULL,
      destination_asset text NOT NULL,
      source_amount numeric NOT NULL,
      destination_amount numeric,
      fee numeric,
      fee_asset text,
      source_account_id text,
      destination_account_id text,
      error text,
      metadata jsonb NOT NULL DEFAULT '{}',
      raw jsonb NOT NULL DEFAULT '{}'
    );
    CREATE INDEX payments_conversions_created ON payments_conversions (created_at DESC, id DESC);

    CREATE TABLE payments_orders (
      id text PRIMARY KEY,
      connector_id text NOT NULL REFERENCES payments_connectors (id),
      reference text NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      direction text NOT NULL,
      type text NOT NULL,
      status text NOT NULL,
      time_in_force text NOT NULL,
      source_asset text NOT NULL,
      destination_asset text NOT NULL,
      base_quantity_ordered numeric NOT NULL,
      base_quantity_filled numeric,
      limit_price numeric,
      stop_price numeric,
      average_fill_price numeric,
      price_asset text,
      quote_amount numeric,
      quote_asset text,
      fee numeric,
      fee_asset text,
      expires_at timestamptz,
      client_order_id text,
      source_account_id text,
      destination_account_id text,
      error text,
      metadata jsonb NOT NULL DEFAULT '{}',
      raw jsonb NOT NULL DEFAULT '{}'
    );
    CREATE INDEX payments_orders_created ON payments_orders (created_at DESC, id DESC);

    CREATE TABLE payments_order_adjustments (
      id text PRIMARY KEY,
      order_id text NOT NULL REFERENCES payments_orders (id) ON DELETE CASCADE,
      reference text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      status text NOT NULL,
      base_quantity_filled numeric,
      fee numeric,
      fee_asset text,
      metadata jsonb NOT NULL DEFAULT '{}',
      raw jsonb NOT NULL DEFAULT '{}',
      seq bigserial NOT NULL
    );
    CREATE INDEX payments_order_adjustments_order ON payments_order_adjustments (order_id, seq);

    CREATE TABLE payments_initiation_reversals (
      id text PRIMARY KEY,
      connector_id text NOT NULL REFERENCES payments_connectors (id),
      payment_initiation_id text NOT NULL REFERENCES payments_initiations (id) ON DELETE CASCADE,
      number integer NOT NULL,
      reference text NOT NULL,
      description text NOT NULL DEFAULT '',
      amount numeric NOT NULL,
      asset text NOT NULL,
      metadata jsonb NOT NULL DEFAULT '{}',
      status text NOT NULL,
      error text,
      payment_id text REFERENCES payments_payments (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (payment_initiation_id, number)
    );

    ALTER TABLE payments_initiation_adjustments ADD COLUMN amount numeric;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE payments_initiation_adjustments DROP COLUMN amount;
    DROP TABLE payments_initiation_reversals, payments_order_adjustments, payments_orders, payments_conversions;
  `);
}
