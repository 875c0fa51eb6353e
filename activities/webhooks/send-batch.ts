import { Context } from '@temporalio/activity';
import type { Db } from '../../db/knex';
import { signingSecrets } from '../../areas/webhooks';
import { cancelDeliveries, loadDeliveriesToSend, recordAttempts, type DeliveryToSend } from '../../areas/webhooks';
import type { AttemptRecord } from '../../areas/webhooks';
import { endpointConcurrency, type WebhookSettings } from '../../lib/webhooks/settings';
import { webhookHeaders } from '../../lib/webhooks/signature';
import { postWebhook } from './http-send';
import { createLimiter, keyedLimiter } from './limiter';
import { attemptRecord, judgeAttempt } from './verdict';

/** A delivery whose last attempt asks for another: attempt `retryAttempt` is due after `delayMs`. */
export interface RetryDue {
  deliveryId: string;
  retryAttempt: number;
  delayMs: number;
}

/** Attempts are written in groups of this many (two statements per group), as their requests complete. */
const RECORD_GROUP = 100;

/**
 * Which deliveries of a batch are at attempt `attempt` (0: new, not attempted; n: pending again after n attempts). A
 * retried batch activity skips the deliveries the previous try already attempted (their next retry, if one is due, is
 * reported again from the recorded next_retry_at) and those a replay has taken over; deliveries whose config is gone or
 * inactive are cancelled as in the delivery workflow.
 */
export function sortDeliveries(deliveries: DeliveryToSend[], attempt: number, now: number) {
  const toSend: DeliveryToSend[] = [];
  const due: RetryDue[] = [];
  const deleted: string[] = [];
  const deactivated: string[] = [];
  for (const d of deliveries) {
    if (d.replayGeneration > 0 || d.status !== 'pending') continue;
    if (d.attemptCount > attempt) {
      due.push({ deliveryId: d.id, retryAttempt: d.attemptCount, delayMs: Math.max(0, (d.nextRetryAt?.getTime() ?? now) - now) });
      continue;
    }
    if (d.attemptCount < attempt) continue;
    if (!d.config) deleted.push(d.id);
    else if (!d.config.active) deactivated.push(d.id);
    else toSend.push(d);
  }
  return { toSend, due, deleted, deactivated };
}

/** Buffers attempt records and writes them in groups, one group at a time; `close()` writes the rest and rethrows. */
function attemptRecorder(db: Db) {
  let buffer: AttemptRecord[] = [];
  let chain = Promise.resolve();
  let failure: unknown;
  const flush = () => {
    const group = buffer;
    buffer = [];
    // Errors are kept for close(), not left as a rejected promise nobody awaits (that would crash the worker).
    chain = chain.then(() => recordAttempts(db, group)).catch((error) => void (failure ??= error));
  };
  return {
    add(record: AttemptRecord) {
      buffer.push(record);
      if (buffer.length >= RECORD_GROUP) flush();
    },
    async close() {
      flush();
      await chain;
      if (failure) throw failure;
    },
  };
}

/**
 * Attempt number `attempt` (0 = the first) of every delivery of an event batch, in one activity: requests run
 * concurrently (at most `batchConcurrency` at once, `endpointConcurrency` per endpoint), each attempt is recorded like
 * the delivery workflow's (status, schedule, Retry-After), and the deliveries that need another attempt are returned
 * with its number and delay. Heartbeats as requests complete.
 */
export function createSendWebhookBatch(deps: { db: Db; settings: WebhookSettings }) {
  const { db, settings } = deps;
  return async function sendWebhookBatch(deliveryIds: string[], attempt = 0): Promise<RetryDue[]> {
    const context = Context.current();
    const { toSend, due, deleted, deactivated } = sortDeliveries(await loadDeliveriesToSend(db, deliveryIds), attempt, Date.now());
    await cancelDeliveries(db, deleted, 'the config was deleted');
    await cancelDeliveries(db, deactivated, 'the config was deactivated');

    const recorder = attemptRecorder(db);
    const limit = createLimiter(settings.batchConcurrency);
    const perEndpoint = keyedLimiter(endpointConcurrency(settings));
    const nextAt = new Map<string, number>();
    const heartbeat = setInterval(() => context.heartbeat(), 5000);
    try {
      await Promise.all(
        toSend.map(async (delivery) => {
          const config = delivery.config!;
          const headers = webhookHeaders({ secrets: signingSecrets(config), id: delivery.id, body: delivery.payload, test: false });
          const outcome = await perEndpoint(config.endpoint, () =>
            limit(() => postWebhook({ url: config.endpoint, headers, body: delivery.payload, timeoutMs: settings.httpTimeoutMs, allowed: settings.allowed })),
          );
          const now = Date.now();
          const verdict = judgeAttempt(outcome, { retryAttempt: attempt, runStartedAt: new Date(delivery.runStartedAt), now, settings });
          if (verdict.nextDelayMs !== undefined) nextAt.set(delivery.id, now + verdict.nextDelayMs);
          recorder.add(attemptRecord({ deliveryId: delivery.id, retryAttempt: attempt, config, now }, outcome, verdict));
          context.heartbeat();
        }),
      );
      await recorder.close();
    } finally {
      clearInterval(heartbeat);
    }
    const now = Date.now();
    for (const [deliveryId, at] of nextAt) due.push({ deliveryId, retryAttempt: attempt + 1, delayMs: Math.max(0, at - now) });
    return due;
  };
}
