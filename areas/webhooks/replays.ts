import { conflict, notFound, validationError } from '../../lib/errors';
import { withIdempotencyKey } from '../../db/idempotency';
import type { Db, Executor } from '../../db/knex';
import { isUuid } from './configs';
import { presentDelivery, type Delivery, type DeliveryRow } from './deliveries';

/** Replays of one delivery and bulk replays share one key space, as in Formance: a key names one request. */
export const REPLAY_SCOPE = 'webhooks/replay';

/** Formance's widest bulk replay window. */
const MAX_REPLAY_WINDOW_MS = 90 * 24 * 3600_000;

/**
 * Puts failed deliveries back in the queue as a new replay generation: pending, no attempt yet, a fresh retry window.
 * Only rows still failed are changed (the caller holds their locks).
 */
async function restartFailed(trx: Executor, ids: string[]): Promise<DeliveryRow[]> {
  if (ids.length === 0) return [];
  return trx<DeliveryRow>('webhook_deliveries')
    .whereIn('id', ids)
    .where('status', 'failed')
    .update({
      status: 'pending',
      replay_generation: trx.raw('replay_generation + 1') as unknown as number,
      attempt_count: 0,
      next_retry_at: null,
      run_started_at: trx.fn.now() as unknown as Date,
      updated_at: trx.fn.now() as unknown as Date,
    })
    .returning('*');
}

/**
 * The database half of a replay of one delivery: a failed delivery of an active config becomes pending in a new
 * generation. A pending one is refused rather than expedited: Temporal owns its retry schedule (see
 * docs/events-and-webhooks.md). With a key seen before, the first answer is returned and nothing is done again.
 * @returns the delivery as answered, and the row whose delivery workflow the caller must start (absent on a repeat).
 * @throws ApiError NOT_FOUND, CONFLICT (not failed, config inactive or deleted, key used for another request)
 */
export async function claimDeliveryReplay(db: Db, id: string, key: string | undefined): Promise<{ delivery: Delivery; started?: DeliveryRow }> {
  let started: DeliveryRow | undefined;
  const { value } = await db.transaction((trx) =>
    withIdempotencyKey(trx, { scope: REPLAY_SCOPE, key, request: { delivery: id } }, async () => {
      // The row lock serialises concurrent replays of one delivery: only the first sees it failed.
      const current = isUuid(id) ? await trx<DeliveryRow>('webhook_deliveries').where({ id }).forUpdate().first() : undefined;
      if (!current) throw notFound('delivery not found');
      if (current.status !== 'failed') {
        throw conflict(`delivery cannot be replayed: it is ${current.status}; only a failed delivery can be (a pending one is retried on its schedule)`);
      }
      const config = await trx('webhook_configs').where({ id: current.config_id, active: true }).first('id');
      if (!config) throw conflict('delivery cannot be replayed: its config is inactive or deleted');
      [started] = await restartFailed(trx, [id]);
      return presentDelivery(started);
    }),
  );
  return { delivery: value, ...(started ? { started } : {}) };
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
export async function claimBulkReplay(db: Db, request: BulkReplayRequest, key: string | undefined): Promise<{ result: BulkReplayResult; started: DeliveryRow[] }> {
  const to = request.createdAtTo ?? new Date();
  if (to < request.createdAtFrom || to.getTime() - request.createdAtFrom.getTime() > MAX_REPLAY_WINDOW_MS) {
    throw validationError('replay window must be positive and at most 90 days (createdAtFrom to createdAtTo, or now)');
  }
  let started: DeliveryRow[] = [];
  const { value } = await db.transaction((trx) =>
    withIdempotencyKey(trx, { scope: REPLAY_SCOPE, key, request: { deliveries: request } }, async () => {
      const query = trx('webhook_deliveries as d')
        .join('webhook_configs as c', 'c.id', 'd.config_id')
        .where('c.active', true)
        .select('d.id', 'd.status', 'd.created_at')
        .where('d.created_at', '>=', request.createdAtFrom)
        .where('d.created_at', '<=', to)
        .whereIn('d.status', request.statuses)
        .orderBy([{ column: 'd.created_at', order: 'asc' }, { column: 'd.id', order: 'asc' }])
        .limit(request.pageSize + 1)
        .forUpdate('d');
      if (request.configIds.length > 0) query.whereIn('d.config_id', request.configIds);
      if (request.after) query.whereRaw('(d.created_at, d.id) > (?::timestamptz, ?::uuid)', request.after);
      const rows: Array<Pick<DeliveryRow, 'id' | 'status' | 'created_at'>> = await query;
      const page = rows.slice(0, request.pageSize);
      started = await restartFailed(trx, page.filter((row) => row.status === 'failed').map((row) => row.id));
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
  return { result: value, started };
}
