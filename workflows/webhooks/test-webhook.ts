import { proxyActivities } from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhooks';

const { sendTestWebhook } = proxyActivities<WebhookActivities>({
  // Op 16 is a single try by definition: the caller waits for it and sees its outcome.
  startToCloseTimeout: '1m',
  retry: { maximumAttempts: 1 },
});

/** Op 16: sends a test request to a config's endpoint once and returns the attempt (null: unknown config). */
export async function testWebhook(configId: string) {
  return sendTestWebhook(configId);
}
