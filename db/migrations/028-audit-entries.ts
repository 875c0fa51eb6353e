import type { Knex } from 'knex';

/**
 * The audit trail (areas/auth/audit.ts): one row per state-changing request the API answered. `seq` orders the list
 * (newest first) and is its cursor key; `at` serves the time filters and the retention delete.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS audit_entries (
      seq bigserial PRIMARY KEY,
      id uuid NOT NULL UNIQUE,
      at timestamptz NOT NULL,
      client_id text,
      scopes text[] NOT NULL DEFAULT '{}',
      method text NOT NULL,
      route text NOT NULL,
      targets jsonb NOT NULL DEFAULT '{}',
      status integer NOT NULL,
      request_id text NOT NULL,
      duration_ms double precision NOT NULL
    );
    CREATE INDEX IF NOT EXISTS audit_entries_at ON audit_entries (at);
    CREATE INDEX IF NOT EXISTS audit_entries_client ON audit_entries (client_id, seq);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS audit_entries');
}
