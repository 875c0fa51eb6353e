import type { Knex } from 'knex';

/**
 * Per-endpoint retries. A config carries its endpoint's delivery state: `failing_since` (first failed attempt with no
 * success since: the endpoint is in backoff), `backoff_attempts` and `retry_at` (its next probe), the last success and
 * failure, `disabled_at`/`disabled_reason` (disabled by the platform after failing too long, or at a 410), and the
 * drain lease: `drain_running` says one `webhookEndpoint` workflow (id `webhook-endpoint-<config>-<drain_episode>`)
 * owns the endpoint's queue. A delivery is in that queue when it is pending and `queued`, in `queue_seq` order (the
 * order it joined): the queue lives in PostgreSQL, so a dead endpoint costs one workflow, not one per event. Only
 * nullable or defaulted columns are added: no table rewrite.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    SET LOCAL lock_timeout = '10s';
    ALTER TABLE webhook_configs
      ADD COLUMN IF NOT EXISTS failing_since timestamptz(3),
      ADD COLUMN IF NOT EXISTS backoff_attempts integer NOT NULL DEFAULT 0,
      ADD COLUMN IF NOT EXISTS retry_at timestamptz(3),
      ADD COLUMN IF NOT EXISTS last_success_at timestamptz(3),
      ADD COLUMN IF NOT EXISTS last_failure_at timestamptz(3),
      ADD COLUMN IF NOT EXISTS disabled_at timestamptz(3),
      ADD COLUMN IF NOT EXISTS disabled_reason text,
      ADD COLUMN IF NOT EXISTS drain_running boolean NOT NULL DEFAULT false,
      ADD COLUMN IF NOT EXISTS drain_episode integer NOT NULL DEFAULT 0;
    ALTER TABLE webhook_deliveries ADD COLUMN IF NOT EXISTS queued boolean NOT NULL DEFAULT false, ADD COLUMN IF NOT EXISTS queue_seq bigint;
    CREATE SEQUENCE IF NOT EXISTS webhook_delivery_queue_seq;
  `);
  // An endpoint's queue in the order its deliveries joined it; only the rows waiting in it are indexed.
  await knex.raw(
    `CREATE INDEX IF NOT EXISTS webhook_deliveries_queue ON webhook_deliveries (config_id, queue_seq) WHERE status = 'pending' AND queued`,
  );
  await knex.raw(`CREATE INDEX IF NOT EXISTS webhook_configs_draining ON webhook_configs (id) WHERE drain_running`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS webhook_configs_draining');
  await knex.raw('DROP INDEX IF EXISTS webhook_deliveries_queue');
  await knex.raw('ALTER TABLE webhook_deliveries DROP COLUMN IF EXISTS queued, DROP COLUMN IF EXISTS queue_seq');
  await knex.raw('DROP SEQUENCE IF EXISTS webhook_delivery_queue_seq');
  await knex.raw(`
    ALTER TABLE webhook_configs
      DROP COLUMN IF EXISTS failing_since, DROP COLUMN IF EXISTS backoff_attempts, DROP COLUMN IF EXISTS retry_at,
      DROP COLUMN IF EXISTS last_success_at, DROP COLUMN IF EXISTS last_failure_at, DROP COLUMN IF EXISTS disabled_at,
      DROP COLUMN IF EXISTS disabled_reason, DROP COLUMN IF EXISTS drain_running, DROP COLUMN IF EXISTS drain_episode`);
}
