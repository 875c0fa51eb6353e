import { notFound } from '../../lib/errors';
import type { TemporalDeps } from '../../lib/temporal';
import { loadWebhookSettings } from '../../lib/webhooks/settings';
import type { Db } from '../../db/knex';
import type { WebhookAttempt } from './attempts';
import { getConfig } from './configs';
import type { Delivery } from './deliveries';
import { drainsToEnsure, type EndpointDrain } from './endpoints';
import { runTestSend, startEndpointDrains } from './engine';
import { claimBulkReplay, claimDeliveryReplay, claimRecovery, type BulkReplayRequest, type BulkReplayResult, type RecoverResult } from './replays';

type Deps = { db: Db; temporal: TemporalDeps };

/** Op 16: one test send of a config, without retries; a failure is a reported outcome, not an error. Throws NOT_FOUND. */
export async function testConfig(deps: Deps, id: string): Promise<WebhookAttempt> {
  const config = await getConfig(deps.db, id);
  const attempt = await runTestSend(deps.temporal, config.id);
  if (!attempt) throw notFound('config not found');
  return attempt;
}

/**
 * Starts the drains of endpoints whose queues just gained deliveries. The queue is durable in PostgreSQL and the lease
 * is taken: a drain Temporal refuses now is started by the worker's sweep (ensureAllDrains) within
 * WEBHOOKS_DRAIN_SWEEP_INTERVAL_MS, so the caller's change stands. @returns the refusals, for the caller to log.
 */
export async function ensureDrains(deps: Deps, drains: EndpointDrain[]): Promise<Array<{ drain: EndpointDrain; error: unknown }>> {
  if (drains.length === 0) return [];
  return startEndpointDrains(deps.temporal, drains, loadWebhookSettings().httpTimeoutMs);
}

/** The sweep: every endpoint queue gets its drain (a crash between queueing and starting leaves one without). */
export async function ensureAllDrains(deps: Deps): Promise<{ drains: number; refused: Array<{ drain: EndpointDrain; error: unknown }> }> {
  const drains = await drainsToEnsure(deps.db);
  return { drains: drains.length, refused: await ensureDrains(deps, drains) };
}

/**
 * replayDelivery: sends any final delivery (failed, succeeded or cancelled) again as a new replay generation (same
 * webhook-id, fresh retry window, attempts counted from 1 again), through its endpoint's queue. Throws NOT_FOUND,
 * CONFLICT (pending, config inactive or deleted, key reused).
 */
export async function replayDelivery(deps: Deps, id: string, key?: string): Promise<Delivery> {
  const { delivery, drains } = await claimDeliveryReplay(deps.db, id, key);
  await ensureDrains(deps, drains);
  return delivery;
}

/** replayDeliveries: one page of a bulk replay (see claimBulkReplay); throws as replayDelivery. */
export async function replayDeliveries(deps: Deps, request: BulkReplayRequest, key?: string): Promise<BulkReplayResult> {
  const { result, drains } = await claimBulkReplay(deps.db, request, key);
  await ensureDrains(deps, drains);
  return result;
}

/** Resends a config's failed deliveries created since a date (see claimRecovery). */
export async function recoverDeliveries(deps: Deps, configId: string, window: { since: Date; until?: Date }, key?: string): Promise<RecoverResult> {
  const { result, drains } = await claimRecovery(deps.db, configId, window, key);
  await ensureDrains(deps, drains);
  return result;
}
