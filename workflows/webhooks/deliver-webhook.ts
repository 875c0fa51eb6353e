import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { DeliveryPlan, WebhookActivities } from '../../activities/webhooks';

const { markWebhookDeliveryFailed } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '1s', maximumInterval: '1m' },
});

/**
 * One webhook delivery: the send activity carries its own retry policy (exponential backoff from the plan, unlimited
 * attempts; the activity itself decides when the retry window is exhausted and fails non-retryably). The workflow id
 * (`webhook-<eventId>-<configId>`, `-replay-<n>` for replays) makes a delivery findable in the Temporal Web UI, where
 * each retry shows as an attempt of the pending `sendWebhook` activity.
 */
export async function deliverWebhook(plan: DeliveryPlan): Promise<{ delivered: boolean }> {
  const { sendWebhook } = proxyActivities<WebhookActivities>({
    // The HTTP exchange is bounded by httpTimeoutMs; the margin covers reading the row and recording the attempt.
    startToCloseTimeout: plan.httpTimeoutMs + 15_000,
    // No maximumAttempts (unlimited): the activity ends the retries itself once the retry window is exhausted.
    retry: {
      initialInterval: plan.retry.initialIntervalMs,
      backoffCoefficient: plan.retry.backoffCoefficient,
      maximumInterval: Math.max(plan.retry.maximumIntervalMs, plan.retry.initialIntervalMs),
      nonRetryableErrorTypes: ['WEBHOOK_REJECTED', 'WEBHOOK_CONFIG_GONE', 'WEBHOOK_DELIVERY_GONE'],
    },
  });
  try {
    await sendWebhook(plan.deliveryId);
    return { delivered: true };
  } catch (error) {
    // A rejected attempt was recorded by the activity; anything else (a timeout) is recorded here.
    const cause = error instanceof ActivityFailure ? error.cause : undefined;
    if (!(cause instanceof ApplicationFailure && cause.type?.startsWith('WEBHOOK_'))) {
      await markWebhookDeliveryFailed(plan.deliveryId, cause?.message ?? String(error));
    }
    return { delivered: false };
  }
}
