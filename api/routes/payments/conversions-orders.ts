import { emptyPage, getConversion, getOrder } from '../../../areas/payments';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { anyObjectSchema, cursorOf, dataOf } from '../../schemas/common';
import { idParams, v3PlainListQuery } from '../../schemas/payments';
import { tags } from './common';

const none = anyObjectSchema({ description: 'Never present: no connector plugin fetches them.' });

const listRoute = (kind: 'conversions' | 'orders', operationId: string) => defineRoute(
  { method: 'get', path: `/api/payments/v3/${kind}`, operationId, summary: `List ${kind} (always empty: no plugin has FETCH_${kind.toUpperCase()})`, tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(none) } } },
  authenticate('payments:read'),
  validate({ query: v3PlainListQuery }),
  async function listHandler(ctx) {
    ctx.body = cursorEnvelope(ctx.state.input.list, emptyPage<never>(), () => []);
  },
);

export const listConversionsRoute = listRoute('conversions', 'listConversions');
export const listOrdersRoute = listRoute('orders', 'listOrders');

export const readConversionRoute = defineRoute(
  { method: 'get', path: '/api/payments/v3/conversions/{conversionID}', operationId: 'readConversion', summary: 'Read a conversion (always 404)', tags,
    responses: { 200: { description: 'Never answered', schema: dataOf(none) } } },
  authenticate('payments:read'),
  validate({ params: idParams('conversionID') }),
  async function readConversionHandler(ctx) {
    getConversion(ctx.state.input.params.conversionID);
  },
);

export const readOrderRoute = defineRoute(
  { method: 'get', path: '/api/payments/v3/orders/{orderID}', operationId: 'readOrder', summary: 'Read an order (always 404)', tags,
    responses: { 200: { description: 'Never answered', schema: dataOf(none) } } },
  authenticate('payments:read'),
  validate({ params: idParams('orderID') }),
  async function readOrderHandler(ctx) {
    getOrder(ctx.state.input.params.orderID);
  },
);

export const conversionOrderRoutes = [listConversionsRoute, listOrdersRoute, readConversionRoute, readOrderRoute];
