import type { Knex } from 'knex';

/**
 * Reconciliation rules, their evaluations and the alerts their failures open (areas/reconciliation/rules/).
 * - A rule's schedule lives in Temporal (one Schedule per cron rule); the row is the rule's definition.
 * - Evaluations and alerts keep the rule's id without a foreign key: they are the audit record of what was checked
 *   and stay readable (and alerts closable) after the rule is deleted.
 * - One alert per (rule, fingerprint, period): the unique key is what deduplicates failures. `failing` is whether
 *   the fingerprint's last evaluation failed, so a recovery is logged once (a `pass` event), not on every evaluation.
 * - `reconciliation_rule_edges` holds the last side of its threshold for each fingerprint of an edge-triggered rule
 *   (account_threshold), so a balance that stays beyond it opens no new occurrence.
 * - `seq` columns order the lists and are their cursor keys.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS reconciliation_rules (
      seq bigserial UNIQUE,
      id uuid PRIMARY KEY,
      name text NOT NULL,
      template_kind text NOT NULL,
      template_spec jsonb NOT NULL,
      cadence text NOT NULL,
      schedule jsonb,
      severity text NOT NULL,
      labels jsonb NOT NULL DEFAULT '{}',
      notifications jsonb NOT NULL DEFAULT '[]',
      enabled boolean NOT NULL,
      explanation_cel text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE IF NOT EXISTS reconciliation_evaluations (
      seq bigserial UNIQUE,
      id uuid PRIMARY KEY,
      rule_id uuid NOT NULL,
      result text NOT NULL,
      evidence jsonb NOT NULL,
      error text,
      pit_per_source jsonb NOT NULL DEFAULT '{}',
      cost_units integer NOT NULL DEFAULT 0,
      trigger text NOT NULL,
      started_at timestamptz NOT NULL,
      ended_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX IF NOT EXISTS reconciliation_evaluations_rule ON reconciliation_evaluations (rule_id, seq);
    CREATE TABLE IF NOT EXISTS reconciliation_alerts (
      seq bigserial UNIQUE,
      id uuid PRIMARY KEY,
      rule_id uuid NOT NULL,
      fingerprint text NOT NULL,
      period_id text NOT NULL,
      status text NOT NULL,
      severity text NOT NULL,
      labels jsonb NOT NULL DEFAULT '{}',
      evidence jsonb NOT NULL DEFAULT '{}',
      occurrence_count integer NOT NULL,
      first_seen_at timestamptz NOT NULL,
      last_seen_at timestamptz NOT NULL,
      last_evaluation_id uuid NOT NULL,
      failing boolean NOT NULL DEFAULT true,
      ack jsonb,
      snooze jsonb,
      resolution jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (rule_id, fingerprint, period_id)
    );
    CREATE INDEX IF NOT EXISTS reconciliation_alerts_status ON reconciliation_alerts (status, seq);
    CREATE TABLE IF NOT EXISTS reconciliation_alert_events (
      seq bigserial PRIMARY KEY,
      id uuid NOT NULL UNIQUE,
      alert_id uuid NOT NULL REFERENCES reconciliation_alerts (id) ON DELETE CASCADE,
      type text NOT NULL,
      prev_status text,
      new_status text NOT NULL,
      is_reopen boolean NOT NULL DEFAULT false,
      notify boolean NOT NULL,
      evaluation_id uuid,
      payload jsonb NOT NULL DEFAULT '{}',
      at timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS reconciliation_alert_events_alert ON reconciliation_alert_events (alert_id, seq);
    CREATE TABLE IF NOT EXISTS reconciliation_rule_edges (
      rule_id uuid NOT NULL,
      fingerprint text NOT NULL,
      breached boolean NOT NULL,
      PRIMARY KEY (rule_id, fingerprint)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE IF EXISTS reconciliation_rule_edges;
    DROP TABLE IF EXISTS reconciliation_alert_events;
    DROP TABLE IF EXISTS reconciliation_alerts;
    DROP TABLE IF EXISTS reconciliation_evaluations;
    DROP TABLE IF EXISTS reconciliation_rules;
  `);
}
