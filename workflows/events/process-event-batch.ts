import { ParentClosePolicy, patched, proxyActivities, proxyLocalActivities, sleep, startChild, workflowInfo } from '@temporalio/workflow';
import type { EventEnvelope } from '../../areas/events';
import type { DeliveryBatchPlan, RetryDue, WebhookActivities } from '../../activities/webhooks';
import type { EventActivities } from '../../activities/events';
import { SEARCH_ATTRIBUTES } from '../../lib/search-attributes';
import { webhookTaskQueue } from '../../lib/webhooks/task-queue';
import { deliverWebhook } from '../webhooks/deliver-webhook';
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
 * Webhooks of a batch: plan every delivery, then make every first attempt in one activity, which queues the
 * deliveries that need another attempt in their endpoints' queues and starts those endpoints' drains: it reports no
 * retry due, so the rest of this function (a second round, then a `deliverWebhook` child per delivery still failing)
 * only runs in histories of the previous release, which must replay. There, a child
 * costs Temporal and the worker ≈ 80 ms of CPU (docs/decisions/0009-event-batches.md): with 5% of first attempts failing at random,
 * children for every failed first attempt took more CPU than all the first attempts; after a second round only the
 * deliveries that failed twice (a receiver down, typically) get one.
 */
async function deliverBatch(events: EventEnvelope[]): Promise<void> {
  const { deliveries, plan, concurrency }: DeliveryBatchPlan = await planWebhookBatch(events);
  if (deliveries.length === 0) return;
  // The requests go out on the webhook task queue, in slots of their own (histories recorded before kept the platform's).
  const ownQueue = patched('webhook-task-queue');
  const { sendWebhookBatch } = proxyActivities<WebhookActivities>({
    ...(ownQueue ? { taskQueue: webhookTaskQueue(workflowInfo().taskQueue) } : {}),
    startToCloseTimeout: sendBatchTimeoutMs(deliveries.length, concurrency, plan.httpTimeoutMs),
    // Heartbeats come as requests complete and every 5 s: a lost worker is noticed long before the timeout above.
    heartbeatTimeout: '30s',
    // Only infrastructure failures (database down, worker lost) fail this activity: endpoints' answers are results.
    retry: { initialInterval: '1s', maximumInterval: '1m' },
  });
  const byId = new Map(deliveries.map((d) => [d.deliveryId, d]));
  const startChildren = (due: RetryDue[]) =>
    Promise.all(
      due.map(({ deliveryId, retryAttempt, delayMs }) => {
        const delivery = byId.get(deliveryId)!;
        return startChild(deliverWebhook, {
          workflowId: `webhook-${delivery.eventId}-${delivery.configId}`,
          args: [{ deliveryId, configId: delivery.configId, ...plan, firstRetryAttempt: retryAttempt, firstDelayMs: delayMs }],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          typedSearchAttributes: [
            { key: SEARCH_ATTRIBUTES.PlatformArea, value: 'webhooks' },
            { key: SEARCH_ATTRIBUTES.EventType, value: delivery.eventType },
            { key: SEARCH_ATTRIBUTES.WebhookConfigID, value: delivery.configId },
          ],
        });
      }),
    );

  const due = await sendWebhookBatch(deliveries.map((d) => d.deliveryId));
  const [soon, later] = partition(due, (d) => d.retryAttempt === 1 && d.delayMs <= plan.retry.initialIntervalMs);
  // A Retry-After beyond the first interval: the delivery workflow waits it, from now.
  await startChildren(later);
  if (soon.length === 0) return;
  await sleep(Math.max(...soon.map((d) => d.delayMs)));
  await startChildren(
    await sendWebhookBatch(
      soon.map((d) => d.deliveryId),
      1,
    ),
  );
}

function partition<T>(items: T[], test: (item: T) => boolean): [T[], T[]] {
  return [items.filter(test), items.filter((item) => !test(item))];
}

/**
 * The workflow the dispatcher starts for each batch of outbox events (id `events-<batchId>`, the batch's first event
 * id): webhooks and triggers of every event of the batch. The two run side by side, so a slow webhook endpoint does not
 * delay trigger matching. Every step is idempotent, as a step may run again after a crash.
 */
export async function processEventBatch(events: EventEnvelope[]): Promise<void> {
  await Promise.all([deliverBatch(events), matchTriggersBatch(events)]);
}
