import { listAttempts, presentAttempt } from '../../../areas/webhooks';
import { getDeliveryRow, listDeliveries, presentDelivery, replayDeliveries, replayDelivery, type BulkReplayResult } from '../../../areas/webhooks';
import { validationError } from '../../../lib/errors';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope, decodeCursor, encodeCursor, type CursorScope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import {
  attemptListQuery,
  deliveryAttemptSchema,
  deliveryListQuery,
  deliverySchema,
  idParams,
  replayDeliveriesBody,
  replayDeliveriesResultSchema,
} from '../../schemas/webhooks';
import { idempotencyHeader, idempotencyKeyOf } from '../ledger/input';

const tags = ['webhooks'];
const base = '/api/webhooks/deliveries';

export const listDeliveriesRoute = defineRoute(
  {
    method: 'get',
    path: base,
    operationId: 'listWebhookDeliveries',
    summary: 'List deliveries, newest first, without their payloads',
    tags,
    responses: { 200: { description: 'Deliveries', schema: cursorOf(deliverySchema) } },
  },
  authenticate('webhooks:read'),
  validate({ query: deliveryListQuery }),
  async function listDeliveriesHandler(ctx) {
    const list = ctx.state.input.list;
    const page = await listDeliveries(ctx.deps.db, list);
    ctx.body = cursorEnvelope(
      list,
      page,
      (row) => [row.created_at, row.id],
      (row) => presentDelivery(row),
    );
  },
);

export const readDeliveryRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/{id}`,
    operationId: 'readWebhookDelivery',
    summary: 'Read a delivery, with its payload',
    tags,
    responses: { 200: { description: 'The delivery', schema: dataOf(deliverySchema) } },
  },
  authenticate('webhooks:read'),
  validate({ params: idParams }),
  async function readDeliveryHandler(ctx) {
    ctx.body = { data: presentDelivery(await getDeliveryRow(ctx.deps.db, ctx.state.input.params.id), { payload: true }) };
  },
);

export const listAttemptsRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/{id}/attempts`,
    operationId: 'listWebhookAttempts',
    summary: "A delivery's attempts, newest first",
    tags,
    responses: { 200: { description: 'Attempts', schema: cursorOf(deliveryAttemptSchema) } },
  },
  authenticate('webhooks:read'),
  validate({ params: idParams, query: attemptListQuery }),
  async function listAttemptsHandler(ctx) {
    const list = ctx.state.input.list;
    const page = await listAttempts(ctx.deps.db, ctx.state.input.params.id, list);
    ctx.body = cursorEnvelope(list, page, (row) => [row.seq], presentAttempt);
  },
);

export const replayDeliveryRoute = defineRoute(
  {
    method: 'post',
    path: `${base}/{id}/replay`,
    operationId: 'replayWebhookDelivery',
    summary:
      "Send a delivery (failed, succeeded or cancelled) again as a new replay generation (same webhook-id, fresh retry window) through its endpoint's queue; 409 when it is pending or its config inactive",
    tags,
    headers: idempotencyHeader,
    responses: { 200: { description: 'The delivery, pending again', schema: dataOf(deliverySchema) } },
  },
  authenticate('webhooks:write'),
  validate({ params: idParams }),
  async function replayDeliveryHandler(ctx) {
    ctx.body = { data: await replayDelivery(ctx.deps, ctx.state.input.params.id, idempotencyKeyOf(ctx)) };
  },
);

/** A bulk replay's cursor: signed like a list's, and valid only with the filters of the replay that issued it. */
const replayCursorScope = (key: Buffer): CursorScope => ({ key, list: 'replayWebhookDeliveries' });

export const replayDeliveriesRoute = defineRoute(
  {
    method: 'post',
    path: `${base}/replay`,
    operationId: 'replayWebhookDeliveries',
    summary: 'Replay one page (oldest first) of the failed deliveries of active configs created in a window of at most 90 days',
    tags,
    headers: idempotencyHeader,
    responses: { 200: { description: 'What the page did', schema: dataOf(replayDeliveriesResultSchema) } },
  },
  authenticate('webhooks:write'),
  validate({ body: replayDeliveriesBody }),
  async function replayDeliveriesHandler(ctx) {
    const body = ctx.state.input.body;
    const filters = {
      createdAtFrom: new Date(body.createdAtFrom).toISOString(),
      createdAtTo: body.createdAtTo === undefined ? undefined : new Date(body.createdAtTo).toISOString(),
      statuses: [...new Set(body.statuses?.length ? body.statuses : (['failed', 'pending'] as const))].sort(),
      configIds: [...new Set((body.configIds ?? []).map((id) => id.toLowerCase()))].sort(),
    };
    let after: [string, string] | undefined;
    if (body.cursor !== undefined) {
      const state = decodeCursor(body.cursor, replayCursorScope(ctx.deps.cursorKey));
      const issued = state.f as typeof filters;
      filters.createdAtTo ??= issued.createdAtTo;
      if (
        issued.createdAtFrom !== filters.createdAtFrom ||
        issued.createdAtTo !== filters.createdAtTo ||
        issued.statuses.join() !== filters.statuses.join() ||
        issued.configIds.join() !== filters.configIds.join()
      ) {
        throw validationError(
          "body.cursor: the replay cursor does not match the request's filters (createdAtFrom, createdAtTo, statuses, configIds)",
        );
      }
      after = state.k as [string, string];
    }
    const result: BulkReplayResult = await replayDeliveries(
      ctx.deps,
      {
        ...filters,
        createdAtFrom: new Date(filters.createdAtFrom),
        createdAtTo: filters.createdAtTo === undefined ? undefined : new Date(filters.createdAtTo),
        pageSize: replayPageSize(body.pageSize),
        ...(after ? { after } : {}),
      },
      idempotencyKeyOf(ctx),
    );
    const { last, ...data } = result;
    const nextCursor = last
      ? encodeCursor(
          { f: { ...filters, createdAtTo: result.createdAtTo }, p: replayPageSize(body.pageSize), k: last, d: 'next' },
          replayCursorScope(ctx.deps.cursorKey),
        )
      : undefined;
    ctx.body = { data: { ...data, ...(nextCursor ? { nextCursor } : {}) } };
  },
);

/**
 * A bulk replay locks its page's deliveries (and their configs) in one transaction: a page is bounded so those locks
 * stay short (a larger pageSize, which Formance allows, gets this many and a cursor). The replays themselves cost one
 * drain per endpoint, whatever their number.
 */
const MAX_REPLAYS_PER_CALL = 100;
const replayPageSize = (asked: number | undefined) => Math.min(asked ?? MAX_REPLAYS_PER_CALL, MAX_REPLAYS_PER_CALL);

export const deliveryRoutes = [listDeliveriesRoute, replayDeliveriesRoute, readDeliveryRoute, listAttemptsRoute, replayDeliveryRoute];
