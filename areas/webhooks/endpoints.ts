import { emitEvents } from '../../db/outbox';
import type { Db, Executor } from '../../db/knex';
import { notFound } from '../../lib/errors';
import type { WebhookSettings } from '../../lib/webhooks/settings';
import { isUuid, type WebhookConfigRow } from './configs';
import { loadDeliveriesToSend, type DeliveryToSend } from './delivery-batch';

/**
 * Per-endpoint delivery state. An endpoint (a config) is healthy, in backoff (`failing_since` set: its last attempt
 * failed and no success came since), or disabled. Deliveries that cannot go out at once wait in the endpoint's queue
 * (pending rows with `queued`, in `queue_seq` order) in PostgreSQL; one `webhookEndpoint` workflow per endpoint with a
 * queue (the drain, id `webhook-endpoint-<configId>-<episode>`) probes a failing endpoint on its backoff schedule and
 * sends the queue in order once it answers. The config row is the lock every change of the queue takes first, so a
 * drain that finds its queue empty and ends cannot miss a delivery queued at the same moment: whoever queues after
 * the drain ended finds `drain_running` false and starts the next episode.
 */

/** A drain to make sure of: the workflow `webhook-endpoint-<configId>-<episode>`. */
export interface EndpointDrain {
  configId: string;
  episode: number;
}

export type EndpointState = 'healthy' | 'backoff' | 'disabled' | 'inactive';

export interface EndpointConfigRow extends WebhookConfigRow {
  failing_since: Date | null;
  backoff_attempts: number;
  retry_at: Date | null;
  last_success_at: Date | null;
  last_failure_at: Date | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  drain_running: boolean;
  drain_episode: number;
}

/** The platform event of an endpoint disabled by the platform (Svix's EndpointDisabled, Formance-style type). */
export const ENDPOINT_DISABLED_EVENT = 'ENDPOINT_DISABLED';

/** `count` values of the queue sequence, ascending: the positions of deliveries joining queues, in the given order. */
export async function queuePositions(trx: Executor, count: number): Promise<string[]> {
  if (count === 0) return [];
  const result = await trx.raw(
    `SELECT v::text AS v FROM (SELECT nextval('webhook_delivery_queue_seq') AS v FROM generate_series(1, ?::int)) s ORDER BY s.v`,
    [count],
  );
  return result.rows.map((r: { v: string }) => r.v);
}

/** Locks configs in id order (the one lock order of the area, so two writers never deadlock on them). */
async function lockConfigs(trx: Executor, ids: string[], mode: 'update' | 'share'): Promise<EndpointConfigRow[]> {
  if (ids.length === 0) return [];
  const query = trx<EndpointConfigRow>('webhook_configs')
    .whereIn('id', [...new Set(ids)])
    .orderBy('id');
  return mode === 'update' ? query.forUpdate() : query.forShare();
}

/** Takes the drain lease of these (locked) configs: a running drain keeps its episode, else the next one starts. */
export async function claimDrains(trx: Executor, configIds: string[]): Promise<EndpointDrain[]> {
  if (configIds.length === 0) return [];
  const rows: Array<{ id: string; drain_episode: number }> = await trx('webhook_configs')
    .whereIn('id', configIds)
    .update({ drain_running: true, drain_episode: trx.raw('drain_episode + CASE WHEN drain_running THEN 0 ELSE 1 END') as unknown as number })
    .returning(['id', 'drain_episode']);
  return rows.map((r) => ({ configId: r.id, episode: r.drain_episode }));
}

/**
 * Puts pending deliveries at the end of their endpoints' queues (those already queued keep their place) and takes
 * the drain lease of each endpoint. Used by replays and by work handed over from the per-delivery workflows of the
 * previous release. @returns the drains to make sure of.
 */
export async function enqueueDeliveries(db: Db, ids: string[]): Promise<EndpointDrain[]> {
  if (ids.length === 0) return [];
  return db.transaction(async (trx) => {
    const rows: Array<{ id: string; config_id: string; queued: boolean }> = await trx('webhook_deliveries')
      .whereIn('id', ids)
      .where('status', 'pending')
      .select('id', 'config_id', 'queued');
    const configs = await lockConfigs(
      trx,
      rows.map((r) => r.config_id),
      'update',
    );
    const live = new Set(configs.map((c) => c.id));
    const joining = ids.filter((id) => rows.some((r) => r.id === id && !r.queued && live.has(r.config_id)));
    await setQueued(trx, joining);
    return claimDrains(trx, [...new Set(rows.filter((r) => live.has(r.config_id)).map((r) => r.config_id))]);
  });
}

/** Marks deliveries queued at the end of their queues, in the given order. */
async function setQueued(trx: Executor, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const positions = await queuePositions(trx, ids.length);
  await trx.raw(
    `UPDATE webhook_deliveries d SET queued = true, queue_seq = v.seq::bigint, updated_at = now()
     FROM unnest(?::uuid[], ?::text[]) AS v(id, seq) WHERE d.id = v.id AND d.status = 'pending'`,
    [ids, positions],
  );
}

/**
 * The deliveries of an event batch whose endpoint has a queue go to the end of it, in the batch's order, rather than
 * out at once: they keep their order behind the earlier ones, and a dead endpoint is not called once per event. Runs
 * under a share lock of the configs, so a drain cannot end between the check and the queueing.
 * @param deliveries in event order. @returns the ids queued, and the drains to make sure of.
 */
export async function queueBehindDrains(
  db: Db,
  deliveries: Array<{ id: string; configId: string }>,
): Promise<{ queued: Set<string>; drains: EndpointDrain[] }> {
  if (deliveries.length === 0) return { queued: new Set(), drains: [] };
  // The common case, no queue anywhere, takes no lock: a drain that starts just after this read is the same race as
  // one starting just after the locked check, and the deliveries sent meanwhile join its queue only if they fail.
  const configIds = [...new Set(deliveries.map((d) => d.configId))];
  if (!(await db('webhook_configs').whereIn('id', configIds).where('drain_running', true).first('id'))) return { queued: new Set(), drains: [] };
  return db.transaction(async (trx) => {
    const draining = (await lockConfigs(trx, configIds, 'share')).filter((c) => c.drain_running);
    if (draining.length === 0) return { queued: new Set<string>(), drains: [] };
    const ids = new Set(draining.map((c) => c.id));
    const queued = deliveries.filter((d) => ids.has(d.configId)).map((d) => d.id);
    await setQueued(trx, queued);
    return { queued: new Set(queued), drains: draining.map((c) => ({ configId: c.id, episode: c.drain_episode })) };
  });
}

/** What a drain does next: stop, wait for the endpoint's next probe, or send these deliveries (oldest first). */
export type EndpointStep =
  | { action: 'done'; reason: string }
  | { action: 'wait'; delayMs: number }
  | { action: 'send'; config: EndpointConfigRow; deliveries: DeliveryToSend[]; probe: boolean };

/** Pending queued deliveries of a config leave the queue with a final status. */
async function closeQueue(trx: Executor, configId: string, status: 'failed' | 'cancelled', reason: string): Promise<number> {
  return trx('webhook_deliveries')
    .where({ config_id: configId, status: 'pending', queued: true })
    .update({ status, last_error: reason, queued: false, next_retry_at: null, updated_at: trx.fn.now() });
}

/** Ends an episode's lease if it still holds it. */
async function releaseDrain(trx: Executor, configId: string, episode: number): Promise<void> {
  await trx('webhook_configs').where({ id: configId, drain_episode: episode, drain_running: true }).update({ drain_running: false });
}

/**
 * Disables a config on the platform's decision (failing too long, or a 410 Gone): inactive, with when and why; its
 * queued deliveries fail (replayable once it is activated again); a `webhooks.endpoint_disabled` event is written in
 * the same transaction. A config already inactive is left alone. @returns whether it was disabled now.
 */
export async function disableEndpoint(db: Db, configId: string, reason: string): Promise<boolean> {
  return db.transaction(async (trx) => {
    const [row] = await trx<EndpointConfigRow>('webhook_configs')
      .where({ id: configId, active: true })
      .update({
        active: false,
        disabled_at: trx.fn.now() as unknown as Date,
        disabled_reason: reason,
        drain_running: false,
        retry_at: null,
        updated_at: trx.fn.now() as unknown as Date,
      })
      .returning('*');
    if (!row) return false;
    await closeQueue(trx, configId, 'failed', `the endpoint was disabled: ${reason}`);
    await emitEvents(trx, [
      {
        app: 'webhooks',
        type: ENDPOINT_DISABLED_EVENT,
        payload: {
          configId: row.id,
          endpoint: row.endpoint,
          name: row.name,
          reason,
          disabledAt: row.disabled_at,
          ...(row.failing_since ? { failingSince: row.failing_since } : {}),
          ...(row.last_success_at ? { lastSuccessAt: row.last_success_at } : {}),
        },
      },
    ]);
    return true;
  });
}

/**
 * One step of a drain: decides from the config and its queue what the drain does next. Stale drains (another episode
 * holds the lease) stop; a deleted or deactivated config's queue is cancelled, as Formance cancels those deliveries;
 * queued deliveries past their retry window fail; an endpoint failing for `disableAfterMs` is disabled; a failing
 * endpoint waits for its next probe and is probed with its oldest delivery; a healthy one gets the next `chunk`.
 * An empty queue ends the drain, under the config's lock.
 */
export async function nextEndpointStep(
  db: Db,
  configId: string,
  episode: number,
  settings: Pick<WebhookSettings, 'retryForMs' | 'disableAfterMs'>,
  chunk: number,
): Promise<EndpointStep> {
  const config = await db<EndpointConfigRow>('webhook_configs').where({ id: configId }).first();
  if (!config) {
    await closeQueue(db, configId, 'cancelled', 'the config was deleted');
    return { action: 'done', reason: 'the config was deleted' };
  }
  if (!config.drain_running || config.drain_episode !== episode) return { action: 'done', reason: 'another drain holds the queue' };
  if (!config.active) {
    await db.transaction(async (trx) => {
      await closeQueue(trx, configId, 'cancelled', 'the config was deactivated');
      await releaseDrain(trx, configId, episode);
    });
    return { action: 'done', reason: 'the config was deactivated' };
  }
  await db('webhook_deliveries')
    .where({ config_id: configId, status: 'pending', queued: true })
    .where('run_started_at', '<', db.raw(`now() - make_interval(secs => ?)`, [settings.retryForMs / 1000]))
    .update({
      status: 'failed',
      queued: false,
      next_retry_at: null,
      last_error: db.raw(`coalesce(last_error || '; ', '') || 'retries exhausted'`),
      updated_at: db.fn.now(),
    });
  const now = Date.now();
  if (config.failing_since && now - config.failing_since.getTime() >= settings.disableAfterMs) {
    const hours = Math.round((settings.disableAfterMs / 3600_000) * 100) / 100;
    await disableEndpoint(db, configId, `no successful attempt for ${hours} h`);
    return { action: 'done', reason: 'the endpoint was disabled' };
  }
  if (config.failing_since && config.retry_at && config.retry_at.getTime() > now) return { action: 'wait', delayMs: config.retry_at.getTime() - now };
  const probe = config.failing_since !== null;
  const ids: string[] = await db('webhook_deliveries')
    .where({ config_id: configId, status: 'pending', queued: true })
    .orderBy('queue_seq')
    .limit(probe ? 1 : chunk)
    .pluck('id');
  if (ids.length === 0) {
    const ended = await db.transaction(async (trx) => {
      await lockConfigs(trx, [configId], 'update');
      // A fresh statement after the lock: it sees every delivery queued before the lock was granted.
      const left = await trx('webhook_deliveries').where({ config_id: configId, status: 'pending', queued: true }).first('id');
      if (left) return false;
      await releaseDrain(trx, configId, episode);
      return true;
    });
    return ended ? { action: 'done', reason: 'the queue is empty' } : { action: 'wait', delayMs: 0 };
  }
  const deliveries = await loadDeliveriesToSend(db, ids);
  const order = new Map(ids.map((id, i) => [id, i]));
  deliveries.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return { action: 'send', config, deliveries: deliveries.filter((d) => d.status === 'pending'), probe };
}

/**
 * Every drain that should be running: configs holding a lease, and configs with queued deliveries but no lease (a
 * crash between queueing and starting). Queued deliveries of deleted configs are cancelled here, as no drain can
 * reach them. The worker's sweep starts these workflows (idempotently).
 */
export async function drainsToEnsure(db: Db): Promise<EndpointDrain[]> {
  await db('webhook_deliveries as d')
    .where({ 'd.status': 'pending', 'd.queued': true })
    .whereNotExists(db('webhook_configs as c').whereRaw('c.id = d.config_id'))
    .update({ status: 'cancelled', queued: false, last_error: 'the config was deleted', next_retry_at: null, updated_at: db.fn.now() });
  const orphaned: string[] = await db('webhook_configs as c')
    .where('c.drain_running', false)
    .whereExists(db('webhook_deliveries as d').whereRaw('d.config_id = c.id').where({ 'd.status': 'pending', 'd.queued': true }))
    .pluck('c.id');
  const claimed =
    orphaned.length > 0
      ? await db.transaction(async (trx) =>
          claimDrains(
            trx,
            (await lockConfigs(trx, orphaned, 'update')).filter((c) => !c.drain_running).map((c) => c.id),
          ),
        )
      : [];
  const running: Array<{ id: string; drain_episode: number }> = await db('webhook_configs')
    .where('drain_running', true)
    .select('id', 'drain_episode');
  const all = new Map(running.map((r) => [r.id, r.drain_episode]));
  for (const d of claimed) all.set(d.configId, d.episode);
  return [...all].map(([configId, episode]) => ({ configId, episode }));
}

export interface EndpointStats {
  configId: string;
  /** healthy; backoff (failing, retried on a schedule); disabled (by the platform); inactive (deactivated by a user). */
  state: EndpointState;
  delivered: number;
  failed: number;
  pending: number;
  cancelled: number;
  /** Pending deliveries waiting in the endpoint's queue. */
  queued: number;
  lastSuccessAt?: Date;
  lastFailureAt?: Date;
  /** Backoff: when it began, how many probes failed, when the next one is due. */
  backoff?: { failingSince: Date; failedProbes: number; nextAttemptAt?: Date };
  disabledAt?: Date;
  disabledReason?: string;
}

export function endpointState(row: Pick<EndpointConfigRow, 'active' | 'disabled_at' | 'failing_since'>): EndpointState {
  if (!row.active) return row.disabled_at ? 'disabled' : 'inactive';
  return row.failing_since ? 'backoff' : 'healthy';
}

/** A config's delivery counts and endpoint state. @throws ApiError NOT_FOUND */
export async function getEndpointStats(db: Executor, id: string): Promise<EndpointStats> {
  const row = isUuid(id) ? await db<EndpointConfigRow>('webhook_configs').where({ id }).first() : undefined;
  if (!row) throw notFound('config not found');
  const counts: Array<{ status: string; queued: boolean; n: string }> = await db('webhook_deliveries')
    .where('config_id', id)
    .groupBy('status', 'queued')
    .select('status', 'queued', db.raw('count(*) AS n'));
  const count = (status: string, queued?: boolean) =>
    counts.filter((c) => c.status === status && (queued === undefined || c.queued === queued)).reduce((sum, c) => sum + Number(c.n), 0);
  return {
    configId: row.id,
    state: endpointState(row),
    delivered: count('succeeded'),
    failed: count('failed'),
    pending: count('pending'),
    cancelled: count('cancelled'),
    queued: count('pending', true),
    ...(row.last_success_at ? { lastSuccessAt: row.last_success_at } : {}),
    ...(row.last_failure_at ? { lastFailureAt: row.last_failure_at } : {}),
    ...(row.active && row.failing_since
      ? { backoff: { failingSince: row.failing_since, failedProbes: row.backoff_attempts, ...(row.retry_at ? { nextAttemptAt: row.retry_at } : {}) } }
      : {}),
    ...(row.disabled_at ? { disabledAt: row.disabled_at } : {}),
    ...(row.disabled_reason ? { disabledReason: row.disabled_reason } : {}),
  };
}
