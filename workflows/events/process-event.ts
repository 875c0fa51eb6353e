import { ParentClosePolicy, proxyLocalActivities, startChild } from '@temporalio/workflow';
import type { EventEnvelope } from '../../db/events/envelope';
import type { WebhookActivities } from '../../activities/webhooks';
import type { OrchestrationActivities } from '../../activities/orchestration';
import { SEARCH_ATTRIBUTES } from '../../lib/search-attributes';
import { deliverWebhook } from '../webhooks/deliver-webhook';

// A local activity: one short idempotent query, run by the worker that holds the workflow task, which saves a round trip
// through the Temporal server for every event.
const { planWebhookDeliveries } = proxyLocalActivities<WebhookActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: '1m' },
});

// Local too: most events match no trigger, and then the step is one indexed query.
const { matchTriggers } = proxyLocalActivities<OrchestrationActivities>({
  startToCloseTimeout: '60s',
  retry: { initialInterval: '1s', maximumInterval: '1m' },
});

/** One reaction to an event. Steps run in order; each must be idempotent, as a step may run again after a crash. */
export type EventStep = (event: EventEnvelope) => Promise<void>;

/**
 * Webhooks: one child workflow per subscribed config. The children are abandoned on completion (ParentClosePolicy
 * ABANDON): a delivery may retry for days while the event workflow finishes as soon as they have started.
 */
export async function fanOutWebhooks(event: EventEnvelope): Promise<void> {
  const plans = await planWebhookDeliveries(event);
  await Promise.all(
    plans.map((plan) =>
      startChild(deliverWebhook, {
        workflowId: `webhook-${event.id}-${plan.configId}`,
        args: [plan],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        typedSearchAttributes: [
          { key: SEARCH_ATTRIBUTES.PlatformArea, value: 'webhooks' },
          { key: SEARCH_ATTRIBUTES.EventType, value: `${event.app}.${event.type.toLowerCase()}` },
          { key: SEARCH_ATTRIBUTES.WebhookConfigID, value: plan.configId },
        ],
      }),
    ),
  );
}

/**
 * Triggers: each live trigger on the event's type whose filter matches starts an instance of its workflow (or records
 * why its vars could not be evaluated). The activity is idempotent per (trigger, event).
 */
export async function startTriggeredWorkflows(event: EventEnvelope): Promise<void> {
  await matchTriggers(event);
}

/**
 * The steps every event goes through. To add one (e.g. trigger matching), write an `EventStep` that calls its
 * activity through proxyActivities and append it here: appending keeps the histories of running events replayable.
 */
export const EVENT_STEPS: EventStep[] = [fanOutWebhooks, startTriggeredWorkflows];

/**
 * The per-event workflow of the previous release (workflow id `event-<eventId>`). The dispatcher now starts
 * `processEventBatch` instead; this stays registered so that runs started before the upgrade finish.
 */
export async function processEvent(event: EventEnvelope): Promise<void> {
  for (const step of EVENT_STEPS) await step(event);
}
