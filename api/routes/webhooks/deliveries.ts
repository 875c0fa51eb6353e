import { listAttempts, presentAttempt } from '../../../areas/webhooks';
import { getDeliveryRow, listDeliveries, presentDelivery, replayDelivery } from '../../../areas/webhooks';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import { attemptListQuery, deliveryListQuery, deliverySchema, idParams, webhookAttemptSchema } from '../../schemas/webhooks';

const tags = ['webhooks'];
const base = '/api/webhooks/deliveries';

export const listDeliveriesRoute = defineRoute(
  { method: 'get', path: base, operationId: 'listWebhookDeliveries', summary: 'List deliveries, newest first', tags, responses: { 200: { description: 'Deliveries', schema: cursorOf(deliverySchema) } } },
  authenticate('webhooks:read'),
  validate({ query: deliveryListQuery }),
  async function listDeliveriesHandler(ctx) {
    const list = ctx.state.input.list;
    const page = await listDeliveries(ctx.deps.db, list);
    ctx.body = cursorEnvelope(list, page, (row) => [row.created_at, row.id], presentDelivery);
  },
);

export const readDeliveryRoute = defineRoute(
  { method: 'get', path: `${base}/{id}`, operationId: 'readWebhookDelivery', summary: 'Read a delivery', tags, responses: { 200: { description: 'The delivery', schema: dataOf(deliverySchema) } } },
  authenticate('webhooks:read'),
  validate({ params: idParams }),
  async function readDeliveryHandler(ctx) {
    ctx.body = { data: presentDelivery(await getDeliveryRow(ctx.deps.db, ctx.state.input.params.id)) };
  },
);

export const listAttemptsRoute = defineRoute(
  { method: 'get', path: `${base}/{id}/attempts`, operationId: 'listWebhookAttempts', summary: 'A delivery\'s attempts, oldest first', tags, responses: { 200: { description: 'Attempts', schema: cursorOf(webhookAttemptSchema) } } },
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
    summary: 'Send a finished delivery again (same webhook-id, fresh retry window); 409 while it is still pending or retrying',
    tags,
    responses: { 200: { description: 'The delivery, pending again', schema: dataOf(deliverySchema) } },
  },
  authenticate('webhooks:write'),
  validate({ params: idParams }),
  async function replayDeliveryHandler(ctx) {
    const row = await replayDelivery(ctx.deps, ctx.state.input.params.id);
    ctx.body = { data: presentDelivery(row) };
  },
);

export const deliveryRoutes = [listDeliveriesRoute, readDeliveryRoute, listAttemptsRoute, replayDeliveryRoute];
