import type { Knex } from 'knex';

/**
 * What a connector keeps between fetches and webhooks: `payments_connector_states` holds one JSON state per connector
 * and kind (a fetch cursor, written in the same transaction as the rows it fetched, so a restart resumes exactly
 * after them; the webhook endpoint a plugin registered at install, with its signing secret). `payments_webhook_events`
 * records each provider event applied, so a redelivered event changes nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS payments_connector_states (
      connector_id text NOT NULL REFERENCES payments_connectors (id),
      kind text NOT NULL,
      state jsonb NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (connector_id, kind)
    );
    CREATE TABLE IF NOT EXISTS payments_webhook_events (
      connector_id text NOT NULL REFERENCES payments_connectors (id),
      event_id text NOT NULL,
      type text NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (connector_id, event_id)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS payments_webhook_events; DROP TABLE IF EXISTS payments_connector_states');
}
