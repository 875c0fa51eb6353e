import { getPayment, updatePaymentMetadata } from '../../../areas/payments';
import { listPaymentsJson, paymentSortKeyOf } from '../../../areas/payments';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelopeJson } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import { idParams, metadataBody, paymentSchema, paymentsListQuery } from '../../schemas/payments';
import { noContent, tags } from './common';

export const listPaymentsRoute = defineRoute(
  {
    method: 'get', path: '/api/payments/payments', operationId: 'listPayments', summary: 'List payments (op 7)', tags,
    description: 'pageSize 1..1000 (default 15), cursor alone, sort `field:asc|desc` (default date:desc), query: a JSON filter.',
    responses: { 200: { description: 'Cursor of payments', schema: cursorOf(paymentSchema) } },
  },
  authenticate('payments:read'),
  validate({ query: paymentsListQuery }),
  async function listPaymentsHandler(ctx) {
    const list = ctx.state.input.list;
    const page = await listPaymentsJson(ctx.deps.db, list.filters, list);
    const keyOf = paymentSortKeyOf(list.filters);
    ctx.type = 'application/json';
    ctx.body = cursorEnvelopeJson(list, page, (item) => keyOf(item.sort()));
  },
);

export const readPaymentRoute = defineRoute(
  { method: 'get', path: '/api/payments/payments/{paymentId}', operationId: 'readPayment', summary: 'Read a payment', tags, responses: { 200: { description: 'Payment', schema: dataOf(paymentSchema) } } },
  authenticate('payments:read'),
  validate({ params: idParams('paymentId') }),
  async function readPaymentHandler(ctx) {
    ctx.body = { data: await getPayment(ctx.deps.db, ctx.state.input.params.paymentId) };
  },
);

export const updatePaymentMetadataRoute = defineRoute(
  { method: 'patch', path: '/api/payments/payments/{paymentId}/metadata', operationId: 'updatePaymentMetadata', summary: 'Merge metadata into a payment', tags, responses: noContent },
  authenticate('payments:write'),
  validate({ params: idParams('paymentId'), body: metadataBody }),
  async function updatePaymentMetadataHandler(ctx) {
    await updatePaymentMetadata(ctx.deps.db, ctx.state.input.params.paymentId, ctx.state.input.body);
    ctx.status = 204;
  },
);

export const paymentRoutes = [listPaymentsRoute, readPaymentRoute, updatePaymentMetadataRoute];
