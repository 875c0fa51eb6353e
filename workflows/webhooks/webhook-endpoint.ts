import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhooks';

export interface WebhookEndpointInput {
  configId: string;
  /** The drain lease's episode this run holds (its workflow id is `webhook-endpoint-<configId>-<episode>`). */
  episode: number;
  /** WEBHOOKS_HTTP_TIMEOUT_MS, which bounds a step's last request (workflows cannot read settings). */
  httpTimeoutMs: number;
}

/** Steps (and timers) per run before continuing as new, so a long outage does not grow one history without bound. */
const STEPS_PER_RUN = 100;

/**
 * The drain of one webhook endpoint: the only workflow a failing endpoint costs, however many events are waiting for
 * it (they wait in PostgreSQL, in its queue). Each step (an activity: send the queue in order, or probe a failing
 * endpoint once) says what comes next: the end (queue empty, config gone or disabled), a timer until the endpoint's
 * next probe, or another step at once. Runs on the webhook task queue.
 */
export async function webhookEndpoint(input: WebhookEndpointInput): Promise<void> {
  const { webhookEndpointStep } = proxyActivities<WebhookActivities>({
    // A step sends for at most 20 s, then its requests in flight finish within the HTTP timeout; the margin covers
    // reading and recording. Heartbeats come after every group of requests.
    startToCloseTimeout: 20_000 + input.httpTimeoutMs + 60_000,
    heartbeatTimeout: input.httpTimeoutMs + 30_000,
    // Only infrastructure failures (database down, worker lost) fail a step: endpoints' answers are results.
    retry: { initialInterval: '1s', maximumInterval: '1m' },
  });
  for (let step = 0; step < STEPS_PER_RUN; step++) {
    const next = await webhookEndpointStep(input.configId, input.episode);
    if (next.done) return;
    if (next.delayMs > 0) await sleep(next.delayMs);
  }
  await continueAsNew<typeof webhookEndpoint>(input);
}
