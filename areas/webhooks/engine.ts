import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../../lib/search-attributes';
import type { TemporalDeps } from '../../lib/temporal';
import type { DeliveryPlan } from '../../lib/webhooks/settings';
import type { deliverWebhook } from '../../workflows/webhooks/deliver-webhook';
import type { testWebhook } from '../../workflows/webhooks/test-webhook';
import type { WebhookAttempt } from './attempts';

/**
 * Every Temporal call the webhooks area makes from the API side. Sends never leave the API process directly: they run
 * as activities on the worker, with their own retry policies, so the API never calls out to a customer's endpoint and
 * every send shows in the Web UI.
 */

/** Runs a one-attempt test send and waits for its outcome (op 16); undefined when the config vanished meanwhile. */
export async function runTestSend(temporal: TemporalDeps, configID: string): Promise<WebhookAttempt | undefined> {
  const attempt = await temporal.client.workflow.execute<typeof testWebhook>('testWebhook', {
    taskQueue: temporal.taskQueue,
    workflowId: `webhook-test-${configID}-${randomUUID()}`,
    args: [configID],
    workflowExecutionTimeout: '2m',
  });
  return (attempt ?? undefined) as WebhookAttempt | undefined;
}

/**
 * Starts the replay of a delivery: a deliverWebhook run with a fresh retry window, id `…-replay-<generation>`. A run
 * already started under that id (an earlier start whose answer was lost) is that replay: not an error.
 */
export async function startDeliveryReplay(
  temporal: TemporalDeps,
  delivery: { eventID: string; configID: string; eventType: string; replay: number },
  plan: DeliveryPlan,
): Promise<void> {
  try {
    await temporal.client.workflow.start<typeof deliverWebhook>('deliverWebhook', {
      taskQueue: temporal.taskQueue,
      workflowId: `webhook-${delivery.eventID}-${delivery.configID}-replay-${delivery.replay}`,
      args: [plan],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: SEARCH_ATTRIBUTES.PlatformArea, value: 'webhooks' },
        { key: SEARCH_ATTRIBUTES.EventType, value: delivery.eventType },
        { key: SEARCH_ATTRIBUTES.WebhookConfigID, value: delivery.configID },
      ],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
