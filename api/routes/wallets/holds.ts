import { confirmHold, getHold, listHolds, voidHold } from '../../../areas/wallets';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import { metadataFilters } from '../../schemas/ledger';
import { confirmBody, holdDetailSchema, holdParams, listHoldsQuery } from '../../schemas/wallets';
import { idempotencyHeader, idempotencyKeyOf } from '../ledger/input';

const tags = ['wallets'];

export const listHoldsRoute = defineRoute(
  {
    method: 'get',
    path: '/api/wallets/holds',
    operationId: 'listHolds',
    summary: 'List holds, optionally of one wallet',
    tags,
    responses: { 200: { description: 'Holds', schema: cursorOf(holdDetailSchema) } },
  },
  authenticate('wallets:read'),
  validate({ query: listHoldsQuery }),
  async function listHoldsHandler(ctx) {
    const list = ctx.state.input.list;
    const { rest, metadata } = metadataFilters(list.filters);
    const page = await listHolds(ctx.deps.db, { walletID: rest.walletID, metadata }, list);
    ctx.body = cursorEnvelope(
      list,
      page,
      (h) => [h.seq],
      ({ seq: _seq, ...hold }) => hold,
    );
  },
);

export const readHoldRoute = defineRoute(
  {
    method: 'get',
    path: '/api/wallets/holds/{holdID}',
    operationId: 'getHold',
    summary: 'Read a hold with its original and remaining amounts',
    tags,
    responses: { 200: { description: 'Hold', schema: dataOf(holdDetailSchema) } },
  },
  authenticate('wallets:read'),
  validate({ params: holdParams }),
  async function readHoldHandler(ctx) {
    ctx.body = { data: await getHold(ctx.deps.db, ctx.state.input.params.holdID) };
  },
);

export const confirmHoldRoute = defineRoute(
  {
    method: 'post',
    path: '/api/wallets/holds/{holdID}/confirm',
    operationId: 'confirmHold',
    summary: 'Confirm a hold, in part or in full (`final` releases the rest)',
    tags,
    headers: idempotencyHeader,
    responses: { 204: { description: 'Confirmed' } },
  },
  authenticate('wallets:write'),
  validate({ params: holdParams, body: confirmBody, bodyRequired: false }),
  async function confirmHoldHandler(ctx) {
    const body = ctx.state.input.body ?? {};
    await confirmHold(
      ctx.deps.db,
      ctx.state.input.params.holdID,
      { ...(body.amount !== undefined ? { amount: BigInt(body.amount) } : {}), final: body.final === true },
      { idempotencyKey: idempotencyKeyOf(ctx) },
    );
    ctx.status = 204;
  },
);

export const voidHoldRoute = defineRoute(
  {
    method: 'post',
    path: '/api/wallets/holds/{holdID}/void',
    operationId: 'voidHold',
    summary: 'Void a hold: the funds go back to where they came from',
    tags,
    headers: idempotencyHeader,
    responses: { 204: { description: 'Voided' } },
  },
  authenticate('wallets:write'),
  validate({ params: holdParams }),
  async function voidHoldHandler(ctx) {
    await voidHold(ctx.deps.db, ctx.state.input.params.holdID, { idempotencyKey: idempotencyKeyOf(ctx) });
    ctx.status = 204;
  },
);

export const holdRoutes = [listHoldsRoute, readHoldRoute, confirmHoldRoute, voidHoldRoute];
