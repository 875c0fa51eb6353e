import type { Knex } from 'knex';

/**
 * Deliveries as Formance's webhooks service shapes them: statuses `pending` (not attempted yet, or waiting for its next
 * attempt), `delivering`, `succeeded`, `failed` and `cancelled` (its config was deactivated or deleted); `attempt_count`
 * counts the attempts of the current replay generation and `replay_generation` how many times it was replayed; each
 * attempt records its generation. Rows written before are converted: a replay used to restart `retry_attempt` at 0, so
 * an attempt's generation is the number of attempts numbered 0 up to it, minus one.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhook_deliveries RENAME COLUMN attempts TO attempt_count');
  await knex.raw('ALTER TABLE webhook_deliveries RENAME COLUMN replays TO replay_generation');
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.timestamp('last_attempt_at', { useTz: true, precision: 3 });
  });
  await knex.raw(
    `UPDATE webhook_deliveries SET status = CASE status WHEN 'retrying' THEN 'pending' ELSE 'succeeded' END WHERE status IN ('retrying', 'success')`,
  );
  await knex.raw(
    `UPDATE webhook_deliveries SET status = 'cancelled' WHERE status = 'failed' AND last_error IN ('the config was deleted', 'the config was deactivated')`,
  );
  // A process still running the previous release fails loudly on its old values instead of writing them.
  await knex.raw(
    `ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed', 'cancelled'))`,
  );

  await knex.schema.alterTable('webhook_attempts', (t) => {
    t.integer('replay_generation').notNullable().defaultTo(0);
  });
  await knex.raw(`
    UPDATE webhook_attempts a SET replay_generation = g.generation
    FROM (
      SELECT id, GREATEST(0, count(*) FILTER (WHERE retry_attempt = 0) OVER (PARTITION BY delivery_id ORDER BY seq) - 1) AS generation
      FROM webhook_attempts
    ) g
    WHERE a.id = g.id AND g.generation > 0`);
  await knex.raw(`
    UPDATE webhook_deliveries d
    SET last_attempt_at = a.last,
        attempt_count = CASE WHEN d.replay_generation = 0 THEN d.attempt_count ELSE a.in_generation END
    FROM (
      SELECT x.delivery_id, max(x.created_at) AS last, count(*) FILTER (WHERE x.replay_generation = y.replay_generation)::int AS in_generation
      FROM webhook_attempts x JOIN webhook_deliveries y ON y.id = x.delivery_id
      GROUP BY x.delivery_id
    ) a
    WHERE d.id = a.delivery_id`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_status');
  await knex.raw(
    `UPDATE webhook_deliveries SET status = CASE WHEN attempt_count > 0 THEN 'retrying' ELSE 'pending' END WHERE status IN ('pending', 'delivering')`,
  );
  await knex.raw(`UPDATE webhook_deliveries SET status = 'success' WHERE status = 'succeeded'`);
  await knex.raw(`UPDATE webhook_deliveries SET status = 'failed' WHERE status = 'cancelled'`);
  await knex.raw(
    'UPDATE webhook_deliveries d SET attempt_count = (SELECT count(*) FROM webhook_attempts a WHERE a.delivery_id = d.id) WHERE replay_generation > 0',
  );
  await knex.schema.alterTable('webhook_attempts', (t) => {
    t.dropColumn('replay_generation');
  });
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropColumn('last_attempt_at');
  });
  await knex.raw('ALTER TABLE webhook_deliveries RENAME COLUMN replay_generation TO replays');
  await knex.raw('ALTER TABLE webhook_deliveries RENAME COLUMN attempt_count TO attempts');
}
