import { ActivityFailure, ApplicationFailure, proxyActivities, sleep } from '@temporalio/workflow';
import type { DeliveryPlan, WebhookActivities } from '../../activities/webhooks';
import { sendRetryInitialIntervalMs } from './retry-schedule';

const { markWebhookDeliveryFailed } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '1s', maximumInterval: '1m' },
});

/**
 * One webhook delivery: the send activity carries its own retry policy (exponential backoff from the plan, unlimited
 * attempts; the activity itself decides when the retry window is exhausted and fails non-retryably). The workflow id
 * (`webhook-<eventId>-<configId>`, `-replay-<n>` for replays) makes a delivery findable in the Temporal Web UI, where
 * each retry shows as an attempt of the pending `sendWebhook` activity.
 *
 * An event batch makes every delivery's first attempts itself and starts this workflow only for those that need
 * another, with `firstRetryAttempt` and `firstDelayMs`: the workflow sleeps that delay (the schedule's or the
 * receiver's Retry-After), then numbers its attempts from there. Without them (replays, runs started by the previous
 * release) it behaves as it always did, which keeps those histories replayable.
 */
export async function deliverWebhook(plan: DeliveryPlan): Promise<{ delivered: boolean }> {
  const offset = plan.firstRetryAttempt ?? 0;
  const { sendWebhook } = proxyActivities<WebhookActivities>({
    // The HTTP exchange is bounded by httpTimeoutMs; the margin covers reading the row and recording the attempt.
    startToCloseTimeout: plan.httpTimeoutMs + 15_000,
    // No maximumAttempts (unlimited): the activity ends the retries itself once the retry window is exhausted.
    retry: {
      initialInterval: sendRetryInitialIntervalMs(plan.retry, offset),
      backoffCoefficient: plan.retry.backoffCoefficient,
      maximumInterval: Math.max(plan.retry.maximumIntervalMs, plan.retry.initialIntervalMs),
      nonRetryableErrorTypes: ['WEBHOOK_REJECTED', 'WEBHOOK_CONFIG_GONE', 'WEBHOOK_DELIVERY_GONE'],
    },
  });
  try {
    if (plan.firstDelayMs !== undefined && plan.firstDelayMs > 0) await sleep(plan.firstDelayMs);
    await sendWebhook(plan.deliveryId, offset);
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
