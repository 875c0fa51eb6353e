import type { Executor } from '../knex';
import { webhookEventType, type EventEnvelope } from './envelope';

/**
 * Which events anything listens to, read once per dispatch batch: the event types of active webhook configs and of
 * live triggers. An event nobody listens to needs no `processEvent` workflow: starting one per event costs the Temporal
 * server and the worker several times what the write that produced it costs (see README, Benchmarks), for no effect.
 * A config or trigger receives the events dispatched after it exists, which is what a subscriber can expect.
 */
export async function loadSubscriptions(db: Executor): Promise<(event: Pick<EventEnvelope, 'app' | 'type'>) => boolean> {
  const [webhooks, triggers] = await Promise.all([
    db.raw(`SELECT DISTINCT unnest(event_types) AS type FROM webhook_configs WHERE active`),
    db.raw(`SELECT DISTINCT event AS type FROM orchestration_triggers WHERE deleted_at IS NULL`),
  ]);
  const webhookTypes = new Set<string>(webhooks.rows.map((r: { type: string }) => r.type));
  const triggerTypes = new Set<string>(triggers.rows.map((r: { type: string }) => r.type));
  return (event) =>
    webhookTypes.has(webhookEventType(event)) ||
    // Orchestration's own events never fire triggers (see matchTriggers), so they need no workflow for them.
    (event.app !== 'orchestration' && triggerTypes.has(event.type));
}
