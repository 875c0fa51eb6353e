import { conflict, notFound, validationError } from '../../lib/errors';
import { withIdempotencyKey } from '../../db/idempotency';
import type { Db, Executor } from '../../db/knex';
import { isUuid } from './configs';
import { presentDelivery, type Delivery, type DeliveryRow } from './deliveries';
import { claimDrains, queuePositions, type EndpointDrain } from './endpoints';

/** Replays of one delivery and bulk replays share one key space, as in Formance: a key names one request. */
export const REPLAY_SCOPE = 'webhooks/replay';

/** Formance's widest bulk replay window. */
const MAX_REPLAY_WINDOW_MS = 90 * 24 * 3600_000;

/** Statuses a replay of one delivery accepts: every final one (Svix and Formance resend any message). */
const REPLAYABLE = ['failed', 'succeeded', 'cancelled'];

/**
 * Puts deliveries back in their endpoints' queues as a new replay generation: pending, no attempt yet, a fresh retry
 * window, at the end of the queue. Only rows still in one of `statuses` are changed (the caller holds their configs'
 * locks). The endpoints' drain leases are the caller's to take (claimDrains).
 */
async function restartDeliveries(trx: Executor, ids: string[], statuses: string[]): Promise<DeliveryRow[]> {
  if (ids.length === 0) return [];
  const positions = await queuePositions(trx, ids.length);
  const result = await trx.raw(
    `UPDATE webhook_deliveries d
     SET status = 'pending', replay_generation = d.replay_generation + 1, attempt_count = 0, next_retry_at = NULL,
         run_started_at = now(), updated_at = now(), queued = true, queue_seq = v.seq::bigint
     FROM unnest(?::uuid[], ?::text[]) AS v(id, seq)
     WHERE d.id = v.id AND d.status = ANY(?::text[])
     RETURNING d.*`,
    [ids, positions, statuses],
  );
  return result.rows as DeliveryRow[];
}

/** Locks the configs of these deliveries (id order, before any delivery row: the area's lock order) and returns the active ones. */
async function lockActiveConfigs(trx: Executor, configIds: string[]): Promise<Set<string>> {
  const rows: Array<{ id: string; active: boolean }> = await trx('webhook_configs')
    .whereIn('id', [...new Set(configIds)])
    .orderBy('id')
    .forUpdate()
    .select('id', 'active');
  return new Set(rows.filter((r) => r.active).map((r) => r.id));
}

/**
 * The database half of a replay of one delivery: a final delivery (failed, succeeded or cancelled) of an active
 * config becomes pending in a new generation, at the end of its endpoint's queue. A pending one is refused: it is
 * still being delivered, and a second copy in flight would only be a duplicate. With a key seen before, the first
 * answer is returned and nothing is done again.
 * @returns the delivery as answered, and the drain the caller must make sure of (absent on a repeat).
 * @throws ApiError NOT_FOUND, CONFLICT (pending, config inactive or deleted, key used for another request)
 */
export async function claimDeliveryReplay(db: Db, id: string, key: string | undefined): Promise<{ delivery: Delivery; drains: EndpointDrain[] }> {
  let drains: EndpointDrain[] = [];
  const { value } = await db.transaction((trx) =>
    withIdempotencyKey(trx, { scope: REPLAY_SCOPE, key, request: { delivery: id } }, async () => {
      const found = isUuid(id) ? await trx<DeliveryRow>('webhook_deliveries').where({ id }).first('config_id') : undefined;
      if (!found) throw notFound('delivery not found');
      const active = await lockActiveConfigs(trx, [found.config_id]);
      // The row lock serialises concurrent replays of one delivery: only the first sees it final.
      const current = (await trx<DeliveryRow>('webhook_deliveries').where({ id }).forUpdate().first())!;
      if (!REPLAYABLE.includes(current.status)) {
        throw conflict(`delivery cannot be replayed: it is ${current.status} (still being delivered)`);
      }
      if (!active.has(current.config_id)) throw conflict('delivery cannot be replayed: its config is inactive or deleted');
      const [started] = await restartDeliveries(trx, [id], REPLAYABLE);
      drains = await claimDrains(trx, [current.config_id]);
      return presentDelivery(started);
    }),
  );
  return { delivery: value, drains };
}

/** What a recovery did: how many deliveries went back to the queue. */
export interface RecoverResult {
  replayed: number;
  since: string;
  until: string;
}

/**
 * Resends the failed deliveries of one config created in [since, until] (Svix's "recover failed messages"): each
 * becomes pending in a new generation at the end of the endpoint's queue, oldest first. One statement whatever their
 * number, and one drain for the endpoint. Idempotent per key.
 * @throws ApiError NOT_FOUND (config), CONFLICT (config inactive, key used for another request), VALIDATION (window)
 */
export async function claimRecovery(
  db: Db,
  configId: string,
  window: { since: Date; until?: Date },
  key: string | undefined,
): Promise<{ result: RecoverResult; drains: EndpointDrain[] }> {
  const until = window.until ?? new Date();
  if (until < window.since || until.getTime() - window.since.getTime() > MAX_REPLAY_WINDOW_MS) {
    throw validationError('recovery window must be positive and at most 90 days (since to until, or now)');
  }
  let drains: EndpointDrain[] = [];
  const { value } = await db.transaction((trx) =>
    withIdempotencyKey(
      trx,
      { scope: REPLAY_SCOPE, key, request: { recover: configId, since: window.since.toISOString(), until: window.until?.toISOString() ?? null } },
      async () => {
        const exists = isUuid(configId) ? await trx('webhook_configs').where({ id: configId }).first('id') : undefined;
        if (!exists) throw notFound('config not found');
        if (!(await lockActiveConfigs(trx, [configId])).has(configId)) throw conflict('deliveries cannot be resent: the config is inactive');
        const ids: string[] = await trx('webhook_deliveries')
          .where({ config_id: configId, status: 'failed' })
          .where('created_at', '>=', window.since)
          .where('created_at', '<=', until)
          .orderBy([
            { column: 'created_at', order: 'asc' },
            { column: 'id', order: 'asc' },
          ])
          .forUpdate()
          .pluck('id');
        const started = await restartDeliveries(trx, ids, ['failed']);
        if (started.length > 0) drains = await claimDrains(trx, [configId]);
        return { replayed: started.length, since: window.since.toISOString(), until: until.toISOString() };
      },
    ),
  );
  return { result: value, drains };
}

export interface BulkReplayRequest {
  createdAtFrom: Date;
  /** Absent: now, fixed at the first page and carried by the cursor. */
  createdAtTo?: Date;
  statuses: Array<'failed' | 'pending'>;
  configIds: string[];
  pageSize: number;
  /** Where the previous page ended: its last delivery's (created_at, id). */
  after?: [string, string];
}

/** Formance's ReplayDeliveriesResult, with the last row of the page instead of the encoded cursor. */
export interface BulkReplayResult {
  replayed: number;
  /** Pending deliveries brought forward: always 0, as their schedule is Temporal's; they count as skipped. */
  expedited: number;
  skipped: number;
  hasMore: boolean;
  createdAtTo: string;
  last?: [string, string];
}

/**
 * The database half of a bulk replay: one page (oldest first) of the deliveries created in [createdAtFrom,
 * createdAtTo] with one of `statuses`, of active configs (of `configIds` when given). Failed ones are replayed as by
 * claimDeliveryReplay; the others are skipped. Idempotent per key, like claimDeliveryReplay.
 * @throws ApiError VALIDATION (window), CONFLICT (key used for another request)
 */
export async function claimBulkReplay(
  db: Db,
  request: BulkReplayRequest,
  key: string | undefined,
): Promise<{ result: BulkReplayResult; drains: EndpointDrain[] }> {
  const to = request.createdAtTo ?? new Date();
  if (to < request.createdAtFrom || to.getTime() - request.createdAtFrom.getTime() > MAX_REPLAY_WINDOW_MS) {
    throw validationError('replay window must be positive and at most 90 days (createdAtFrom to createdAtTo, or now)');
  }
  let drains: EndpointDrain[] = [];
  const { value } = await db.transaction((trx) =>
    withIdempotencyKey(trx, { scope: REPLAY_SCOPE, key, request: { deliveries: request } }, async () => {
      // Configs first (the area's lock order), then the page's deliveries.
      const configs = await lockActiveConfigs(
        trx,
        request.configIds.length > 0 ? request.configIds : await trx('webhook_configs').where('active', true).pluck('id'),
      );
      const query = trx('webhook_deliveries as d')
        .join('webhook_configs as c', 'c.id', 'd.config_id')
        .where('c.active', true)
        .select('d.id', 'd.status', 'd.created_at', 'd.config_id')
        .where('d.created_at', '>=', request.createdAtFrom)
        .where('d.created_at', '<=', to)
        .whereIn('d.status', request.statuses)
        .orderBy([
          { column: 'd.created_at', order: 'asc' },
          { column: 'd.id', order: 'asc' },
        ])
        .limit(request.pageSize + 1)
        .forUpdate('d');
      if (request.configIds.length > 0) query.whereIn('d.config_id', request.configIds);
      if (request.after) query.whereRaw('(d.created_at, d.id) > (?::timestamptz, ?::uuid)', request.after);
      const rows: Array<Pick<DeliveryRow, 'id' | 'status' | 'created_at' | 'config_id'>> = await query;
      const page = rows.slice(0, request.pageSize);
      const started = await restartDeliveries(
        trx,
        page.filter((row) => row.status === 'failed' && configs.has(row.config_id)).map((row) => row.id),
        ['failed'],
      );
      drains = await claimDrains(trx, [...new Set(started.map((row) => row.config_id))]);
      const last = page[page.length - 1];
      const hasMore = rows.length > request.pageSize;
      return {
        replayed: started.length,
        expedited: 0,
        skipped: page.length - started.length,
        hasMore,
        createdAtTo: to.toISOString(),
        ...(hasMore && last ? { last: [last.created_at.toISOString(), last.id] as [string, string] } : {}),
      };
    }),
  );
  return { result: value, drains };
}
