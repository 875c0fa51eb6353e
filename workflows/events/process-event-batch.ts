import { proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { EventEnvelope } from '../../areas/events';
import type { DeliveryBatchPlan, WebhookActivities } from '../../activities/webhooks';
import type { EventActivities } from '../../activities/events';
import { webhookTaskQueue } from '../../lib/webhooks/task-queue';
import { sendBatchTimeoutMs } from '../webhooks/retry-schedule';

// Local activities: short idempotent queries run by the worker holding the workflow task, without a round trip
// through the Temporal server each.
const { planWebhookBatch } = proxyLocalActivities<WebhookActivities>({
  startToCloseTimeout: '60s',
  retry: { initialInterval: '1s', maximumInterval: '1m' },
});
const { matchTriggersBatch } = proxyLocalActivities<EventActivities>({
  // Each matching event starts a workflow instance: a batch full of matches takes a while.
  startToCloseTimeout: '5m',
  retry: { initialInterval: '1s', maximumInterval: '1m' },
});

/**
 * Webhooks of a batch: plan every delivery, then make every first attempt in one activity. A delivery that needs
 * another attempt joins its endpoint's queue, whose single `webhookEndpoint` workflow retries it on the endpoint's
 * backoff: retries scale with endpoints, not events.
 */
async function deliverBatch(events: EventEnvelope[]): Promise<void> {
  const { deliveries, httpTimeoutMs, concurrency }: DeliveryBatchPlan = await planWebhookBatch(events);
  if (deliveries.length === 0) return;
  // The requests go out on the webhook task queue, in worker slots of their own, so a slow endpoint never holds the
  // slots other areas' activities need.
  const { sendWebhookBatch } = proxyActivities<WebhookActivities>({
    taskQueue: webhookTaskQueue(workflowInfo().taskQueue),
    startToCloseTimeout: sendBatchTimeoutMs(deliveries.length, concurrency, httpTimeoutMs),
    // Heartbeats come as requests complete and every 5 s: a lost worker is noticed long before the timeout above.
    heartbeatTimeout: '30s',
    // Only infrastructure failures (database down, worker lost) fail this activity: endpoints' answers are results.
    retry: { initialInterval: '1s', maximumInterval: '1m' },
  });
  await sendWebhookBatch(deliveries.map((d) => d.deliveryId));
}

/**
 * The workflow the dispatcher starts for each batch of outbox events (id `events-<batchId>`, the batch's first event
 * id): webhooks and triggers of every event of the batch. The two run side by side, so a slow webhook endpoint does not
 * delay trigger matching. Every step is idempotent, as a step may run again after a crash.
 */
export async function processEventBatch(events: EventEnvelope[]): Promise<void> {
  await Promise.all([deliverBatch(events), matchTriggersBatch(events)]);
}
