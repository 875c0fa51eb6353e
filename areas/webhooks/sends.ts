import { ApiError, notFound } from '../../lib/errors';
import type { TemporalDeps } from '../../lib/temporal';
import { deliveryPlan, loadWebhookSettings } from '../../lib/webhooks/settings';
import type { Db } from '../../db/knex';
import type { WebhookAttempt } from './attempts';
import { getConfig } from './configs';
import { markDeliveryFailed, startReplay, type DeliveryRow } from './deliveries';
import { runTestSend, startDeliveryReplay } from './engine';

/** Op 16: one test send of a config, without retries; a failure is a reported outcome, not an error. Throws NOT_FOUND. */
export async function testConfig(deps: { db: Db; temporal: TemporalDeps }, id: string): Promise<WebhookAttempt> {
  const config = await getConfig(deps.db, id);
  const attempt = await runTestSend(deps.temporal, config.id);
  if (!attempt) throw notFound('config not found');
  return attempt;
}

/**
 * Sends a finished delivery again (same webhook-id, fresh retry window). Throws NOT_FOUND, CONFLICT (still pending or
 * retrying), SERVICE_UNAVAILABLE (Temporal refused: the delivery is left failed, hence replayable, not pending forever).
 */
export async function replayDelivery(deps: { db: Db; temporal: TemporalDeps }, id: string): Promise<DeliveryRow> {
  const row = await startReplay(deps.db, id);
  try {
    await startDeliveryReplay(
      deps.temporal,
      { eventID: row.event_id, configID: row.config_id, eventType: row.event_type, replay: row.replays },
      deliveryPlan(loadWebhookSettings(), row.id, row.config_id),
    );
  } catch (error) {
    await markDeliveryFailed(deps.db, row.id, 'replay could not be started');
    throw new ApiError('SERVICE_UNAVAILABLE', 'the replay could not be started; retry later', { cause: error });
  }
  return row;
}
