import { OUTBOX_CHANNEL } from '../../db/outbox';
import { batchEvents, claimOutboxBatch, markBatchDispatched, pendingBatches, startEventBatch } from '../../areas/events';
import type { Db } from '../../db/knex';
import { startNotifiedLoop } from '../../db/notified-loop';
import type { Logger } from '../../lib/logger';
import { metrics } from '../../lib/metrics';
import type { TemporalDeps } from '../../lib/temporal';
import { getConfig } from '../../lib/config';

export interface DispatcherOptions {
  db: Db;
  databaseUrl: string;
  temporal: TemporalDeps;
  logger: Logger;
  /** EVENTS_POLL_INTERVAL_MS: the fallback scan when a notification is missed (LISTEN connection down, restart). */
  pollIntervalMs?: number;
  /** EVENTS_BATCH_SIZE: the most events one `processEventBatch` workflow carries. */
  batchSize?: number;
  /** EVENTS_BATCH_INTERVAL_MS: the least time between two claims, i.e. how long events gather into one batch. */
  batchIntervalMs?: number;
}

/**
 * Moves committed outbox rows into Temporal in batches: one `processEventBatch` workflow, id `events-<batchId>`, per
 * batch of events that a webhook config or a trigger listens to; the others are only marked dispatched. A workflow
 * per event costs the Temporal server and the worker ≈ 90 ms of CPU, which caps delivery far below the target
 * (docs/decisions/0009-event-batches.md); a batch pays that once for up to `batchSize` events.
 * - Prompt: LISTEN on the channel `emitEvents` NOTIFYs in the writer's transaction; a periodic scan covers anything
 *   missed, including rows committed while this process or Temporal was down (nothing is lost: a row stays
 *   undispatched until its batch's workflow has started).
 * - Batches form by themselves: the rows committed since the previous claim (at least batchIntervalMs before) make up
 *   the next one, so the batch size grows with the load and a lone event after a quiet spell goes out alone, at once.
 *   Nothing waits for a workflow to finish.
 * - Never fanned out twice, with several workers and across crashes: membership is committed before the start
 *   (claimOutboxBatch), the start reads the members back by batch id, and the workflow id with REJECT_DUPLICATE makes
 *   any second start of a batch (two dispatchers, or a crash between start and marking) a no-op, counted as done.
 */
export function startEventDispatcher(options: DispatcherOptions) {
  const pollIntervalMs = options.pollIntervalMs ?? getConfig().eventsPollIntervalMs;
  const batchSize = options.batchSize ?? getConfig().eventsBatchSize;
  const batchIntervalMs = options.batchIntervalMs ?? getConfig().eventsBatchIntervalMs;
  const { db, logger } = options;
  let lastClaim = 0;

  /** Starts one claimed batch and marks it dispatched. @returns false when Temporal refused (the batch stays pending). */
  async function startBatch(batchId: string): Promise<boolean> {
    const events = await batchEvents(db, batchId);
    if (events.length === 0) return true; // another dispatcher finished it meanwhile
    try {
      await startEventBatch(options.temporal, batchId, events);
    } catch (error) {
      logger.warn({ err: error, batchId }, 'could not start the event batch workflow; its events stay in the outbox');
      return false;
    }
    await markBatchDispatched(db, batchId);
    metrics.eventBatchSize.observe(events.length);
    return true;
  }

  /**
   * Claims one batch, then starts every pending batch (this one and any a crash left). @returns whether to go on.
   * Claims are at least batchIntervalMs apart: a batch workflow costs Temporal and the worker about as much CPU as
   * ten events' deliveries, and the dispatcher is quicker than the workflows it starts, so without a pause it would
   * cut the stream into batches of a few events and hand the backlog to Temporal, where it costs most. A lone event
   * after a quiet spell is claimed at once.
   */
  async function dispatchOnce(): Promise<boolean> {
    const wait = lastClaim + batchIntervalMs - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    lastClaim = Date.now();
    const more = await claimOutboxBatch(db, batchSize);
    let started = true;
    // One batch Temporal refuses (down, or a payload it will not take) does not hold back the batches after it.
    for (const batchId of await pendingBatches(db)) started = (await startBatch(batchId)) && started;
    return more && started;
  }

  return startNotifiedLoop({
    databaseUrl: options.databaseUrl,
    channel: OUTBOX_CHANNEL,
    name: 'event-dispatcher',
    logger,
    pollIntervalMs,
    pass: dispatchOnce,
  });
}
