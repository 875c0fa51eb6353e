import { ApiError, notFound } from '../../lib/errors';
import type { TemporalDeps } from '../../lib/temporal';
import { deliveryPlan, loadWebhookSettings } from '../../lib/webhooks/settings';
import { releaseIdempotencyKey } from '../../db/idempotency';
import type { Db } from '../../db/knex';
import type { WebhookAttempt } from './attempts';
import { getConfig } from './configs';
import { markDeliveryFailed, type Delivery, type DeliveryRow } from './deliveries';
import { runTestSend, startDeliveryReplay } from './engine';
import { claimBulkReplay, claimDeliveryReplay, REPLAY_SCOPE, type BulkReplayRequest, type BulkReplayResult } from './replays';

type Deps = { db: Db; temporal: TemporalDeps };

/** Replay workflows started at once by a bulk replay (a page holds up to 1000). */
const START_CONCURRENCY = 16;

/** Op 16: one test send of a config, without retries; a failure is a reported outcome, not an error. Throws NOT_FOUND. */
export async function testConfig(deps: Deps, id: string): Promise<WebhookAttempt> {
  const config = await getConfig(deps.db, id);
  const attempt = await runTestSend(deps.temporal, config.id);
  if (!attempt) throw notFound('config not found');
  return attempt;
}

/**
 * Starts the delivery workflow of each replayed delivery. Those Temporal refuses are put back to failed (replayable
 * again) and the key is released, so the client's retry with the same key replays them; then SERVICE_UNAVAILABLE.
 */
async function startReplays(deps: Deps, rows: DeliveryRow[], key: string | undefined): Promise<void> {
  const settings = loadWebhookSettings();
  const refused: Array<{ id: string; error: unknown }> = [];
  for (let i = 0; i < rows.length; i += START_CONCURRENCY) {
    await Promise.all(
      rows.slice(i, i + START_CONCURRENCY).map(async (row) => {
        try {
          await startDeliveryReplay(
            deps.temporal,
            { eventID: row.event_id, configID: row.config_id, eventType: row.event_type, replay: row.replay_generation },
            deliveryPlan(settings, row.id, row.config_id),
          );
        } catch (error) {
          refused.push({ id: row.id, error });
        }
      }),
    );
  }
  if (refused.length === 0) return;
  for (const { id } of refused) await markDeliveryFailed(deps.db, id, 'replay could not be started');
  await releaseIdempotencyKey(deps.db, { scope: REPLAY_SCOPE, key });
  throw new ApiError('SERVICE_UNAVAILABLE', 'the replay could not be started; retry later', { cause: refused[0].error });
}

/**
 * replayDelivery: sends a failed delivery again as a new replay generation (same webhook-id, fresh retry window,
 * attempts counted from 1 again). Throws NOT_FOUND, CONFLICT (not failed, config inactive or deleted, key reused),
 * SERVICE_UNAVAILABLE (Temporal refused: the delivery is left failed, hence replayable).
 */
export async function replayDelivery(deps: Deps, id: string, key?: string): Promise<Delivery> {
  const { delivery, started } = await claimDeliveryReplay(deps.db, id, key);
  if (started) await startReplays(deps, [started], key);
  return delivery;
}

/** replayDeliveries: one page of a bulk replay (see claimBulkReplay); throws as replayDelivery. */
export async function replayDeliveries(deps: Deps, request: BulkReplayRequest, key?: string): Promise<BulkReplayResult> {
  const { result, started } = await claimBulkReplay(deps.db, request, key);
  await startReplays(deps, started, key);
  return result;
}
