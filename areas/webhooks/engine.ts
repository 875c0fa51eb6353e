import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../../lib/search-attributes';
import type { TemporalDeps } from '../../lib/temporal';
import { webhookTaskQueue } from '../../lib/webhooks/task-queue';
import type { testWebhook } from '../../workflows/webhooks/test-webhook';
import type { webhookEndpoint } from '../../workflows/webhooks/webhook-endpoint';
import type { WebhookAttempt } from './attempts';
import type { EndpointDrain } from './endpoints';

/**
 * Every Temporal call the webhooks area makes. Sends never leave the API process directly: they run as activities on
 * the worker, on the webhook task queue (lib/webhooks/task-queue.ts), so the API never calls out to a customer's
 * endpoint and webhook work has worker slots of its own.
 */

/** Runs a one-attempt test send and waits for its outcome (op 16); undefined when the config vanished meanwhile. */
export async function runTestSend(temporal: TemporalDeps, configID: string): Promise<WebhookAttempt | undefined> {
  const attempt = await temporal.client.workflow.execute<typeof testWebhook>('testWebhook', {
    taskQueue: webhookTaskQueue(temporal.taskQueue),
    workflowId: `webhook-test-${configID}-${randomUUID()}`,
    args: [configID],
    workflowExecutionTimeout: '2m',
  });
  return (attempt ?? undefined) as WebhookAttempt | undefined;
}

/**
 * Makes sure each drain runs: starts `webhookEndpoint` as `webhook-endpoint-<configId>-<episode>` on the webhook task
 * queue. One already started under that id is that drain (not an error); one that failed, was terminated or timed out
 * is started again (its lease is still held, so its queue still needs it); one that completed released its lease, so
 * a start refused for it is harmless. @returns the drains Temporal refused to start (the sweep retries them).
 */
export async function startEndpointDrains(
  temporal: TemporalDeps,
  drains: EndpointDrain[],
  httpTimeoutMs: number,
): Promise<Array<{ drain: EndpointDrain; error: unknown }>> {
  const refused: Array<{ drain: EndpointDrain; error: unknown }> = [];
  await Promise.all(
    drains.map(async (drain) => {
      try {
        await temporal.client.workflow.start<typeof webhookEndpoint>('webhookEndpoint', {
          taskQueue: webhookTaskQueue(temporal.taskQueue),
          workflowId: endpointWorkflowId(drain),
          args: [{ configId: drain.configId, episode: drain.episode, httpTimeoutMs }],
          workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
          typedSearchAttributes: [
            { key: SEARCH_ATTRIBUTES.PlatformArea, value: 'webhooks' },
            { key: SEARCH_ATTRIBUTES.WebhookConfigID, value: drain.configId },
          ],
        });
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) refused.push({ drain, error });
      }
    }),
  );
  return refused;
}

export const endpointWorkflowId = (drain: EndpointDrain): string => `webhook-endpoint-${drain.configId}-${drain.episode}`;
