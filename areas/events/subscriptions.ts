import type { Executor } from '../../db/knex';
import { webhookEventType, type EventEnvelope } from './envelope';

type EventKind = Pick<EventEnvelope, 'app' | 'type'>;

export interface Subscriptions {
  /** Whether an active webhook config or a live trigger listens to the event's type. */
  listens(event: EventKind): boolean;
  /** How many active webhook configs subscribe to the event's type: the deliveries it will have. */
  webhookConfigs(event: EventKind): number;
}

/**
 * Who listens to which events, read once per dispatch claim: the event types of active webhook configs and of live
 * triggers. An event nobody listens to needs no workflow: putting it through Temporal would cost the Temporal server
 * and the worker several times what the write that produced it costs (see docs/benchmarks.md), for no effect.
 * A config or trigger receives the events dispatched after it exists, which is what a subscriber can expect.
 */
export async function loadSubscriptions(db: Executor): Promise<Subscriptions> {
  const [webhooks, triggers] = await Promise.all([
    db.raw(`SELECT type, count(*)::int AS n FROM webhook_configs, unnest(event_types) AS type WHERE active GROUP BY type`),
    db.raw(`SELECT DISTINCT event AS type FROM orchestration_triggers WHERE deleted_at IS NULL`),
  ]);
  const webhookConfigs = new Map<string, number>(webhooks.rows.map((r: { type: string; n: number }) => [r.type, r.n]));
  const triggerTypes = new Set<string>(triggers.rows.map((r: { type: string }) => r.type));
  return {
    listens: (event) =>
      webhookConfigs.has(webhookEventType(event)) ||
      // Orchestration's own events never fire triggers (see matchTriggers), so they need no workflow for them.
      (event.app !== 'orchestration' && triggerTypes.has(event.type)),
    webhookConfigs: (event) => webhookConfigs.get(webhookEventType(event)) ?? 0,
  };
}
