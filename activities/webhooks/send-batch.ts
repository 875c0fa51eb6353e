import { Context } from '@temporalio/activity';
import type { Db } from '../../db/knex';
import { signingSecrets } from '../../areas/webhooks';
import {
  cancelDeliveries,
  enqueueDeliveries,
  loadDeliveriesToSend,
  queueBehindDrains,
  recordAttempts,
  type DeliveryToSend,
} from '../../areas/webhooks';
import type { AttemptRecord, EndpointDrain } from '../../areas/webhooks';
import { endpointConcurrency, type WebhookSettings } from '../../lib/webhooks/settings';
import { webhookHeaders } from '../../lib/webhooks/signature';
import { postWebhook } from './http-send';
import { createLimiter, keyedLimiter } from './limiter';
import { queuedAttemptRecord } from './verdict';

/**
 * Which deliveries of a batch to send now. A retried batch activity skips the deliveries the previous try already
 * attempted (succeeded, final, or queued for their endpoint's drain) and those a replay has taken over; deliveries
 * whose config is gone or inactive are cancelled. `stranded` are attempted but still pending outside any queue (an
 * attempt recorded without its queueing): they join their endpoint's queue, so no pending delivery is left without a
 * workflow that will send it.
 */
export function sortDeliveries(deliveries: DeliveryToSend[]) {
  const toSend: DeliveryToSend[] = [];
  const stranded: string[] = [];
  const deleted: string[] = [];
  const deactivated: string[] = [];
  for (const d of deliveries) {
    // A queued delivery is its endpoint drain's to send.
    if (d.replayGeneration > 0 || d.status !== 'pending' || d.queued) continue;
    if (d.attemptCount > 0) stranded.push(d.id);
    else if (!d.config) deleted.push(d.id);
    else if (!d.config.active) deactivated.push(d.id);
    else toSend.push(d);
  }
  return { toSend, stranded, deleted, deactivated };
}

/** Attempts are written in groups of this many (two statements per group), as their requests complete. */
const RECORD_GROUP = 100;

/** Buffers attempt records and writes them in groups, one group at a time; `close()` writes the rest and rethrows. */
function attemptRecorder(db: Db, settings: WebhookSettings) {
  let buffer: AttemptRecord[] = [];
  let chain = Promise.resolve();
  let failure: unknown;
  const drains: EndpointDrain[] = [];
  // Taken now, inside the activity: a failed attempt is one warning line of the activity's logger.
  const context = Context.current();
  const log = (message: string, attributes: Record<string, unknown>) => context.log.warn(message, attributes);
  const flush = () => {
    const group = buffer;
    buffer = [];
    // Errors are kept for close(), not left as a rejected promise nobody awaits (that would crash the worker).
    chain = chain
      .then(async () => void drains.push(...(await recordAttempts(db, group, { settings, log }))))
      .catch((error) => void (failure ??= error));
  };
  return {
    add(record: AttemptRecord) {
      buffer.push(record);
      if (buffer.length >= RECORD_GROUP) flush();
    },
    /** @returns the drains the recorded failures call for. */
    async close(): Promise<EndpointDrain[]> {
      flush();
      await chain;
      if (failure) throw failure;
      return drains;
    },
  };
}

/**
 * The first attempt of every delivery of an event batch, in one activity. Deliveries to an endpoint that has a queue
 * (failing, or still sending earlier ones) join the end of it without a request; the others go out concurrently (at
 * most `batchConcurrency` at once, `endpointConcurrency` per endpoint), and a retryable failure puts its delivery in
 * its endpoint's queue and the endpoint in backoff. The endpoints' drains (one workflow per endpoint, not per
 * delivery) are started before returning, so nothing is left for the batch workflow to retry. Heartbeats as requests
 * complete.
 */
export function createSendWebhookBatch(deps: { db: Db; settings: WebhookSettings; ensureDrains: (drains: EndpointDrain[]) => Promise<void> }) {
  const { db, settings } = deps;
  return async function sendWebhookBatch(deliveryIds: string[]): Promise<void> {
    const context = Context.current();
    const loaded = await loadDeliveriesToSend(db, deliveryIds);
    const order = new Map(deliveryIds.map((id, i) => [id, i]));
    loaded.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
    const { toSend, stranded, deleted, deactivated } = sortDeliveries(loaded);
    await cancelDeliveries(db, deleted, 'the config was deleted');
    await cancelDeliveries(db, deactivated, 'the config was deactivated');
    const drains = await enqueueDeliveries(db, stranded);
    const held = await queueBehindDrains(
      db,
      toSend.map((d) => ({ id: d.id, configId: d.configId })),
    );
    drains.push(...held.drains);

    const recorder = attemptRecorder(db, settings);
    const limit = createLimiter(settings.batchConcurrency);
    const perEndpoint = keyedLimiter(endpointConcurrency(settings));
    const heartbeat = setInterval(() => context.heartbeat(), 5000);
    try {
      await Promise.all(
        toSend
          .filter((delivery) => !held.queued.has(delivery.id))
          .map(async (delivery) => {
            const config = delivery.config!;
            const headers = webhookHeaders({ secrets: signingSecrets(config), id: delivery.id, body: delivery.payload, test: false });
            const outcome = await perEndpoint(config.endpoint, () =>
              limit(() =>
                postWebhook({ url: config.endpoint, headers, body: delivery.payload, timeoutMs: settings.httpTimeoutMs, allowed: settings.allowed }),
              ),
            );
            recorder.add(
              queuedAttemptRecord(
                { deliveryId: delivery.id, retryAttempt: 0, config, runStartedAt: new Date(delivery.runStartedAt), now: Date.now() },
                outcome,
                settings,
              ),
            );
            context.heartbeat();
          }),
      );
      drains.push(...(await recorder.close()));
    } finally {
      clearInterval(heartbeat);
    }
    await deps.ensureDrains(drains);
  };
}
