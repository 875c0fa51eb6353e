import { conversionKey, getConversion, getOrder, listConversions, listOrders, orderKey } from '../../../areas/payments';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import { idParams } from '../../schemas/payments';
import { conversionSchema, conversionsListQuery, orderSchema, ordersListQuery } from '../../schemas/payments-v3';
import { tags } from './common';

export const listConversionsRoute = defineRoute(
  {
    method: 'get',
    path: '/api/payments/v3/conversions',
    operationId: 'listConversions',
    summary: 'List the conversions connectors fetched (FETCH_CONVERSIONS), newest first',
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(conversionSchema) } },
  },
  authenticate('payments:read'),
  validate({ query: conversionsListQuery }),
  async function listConversionsHandler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listConversions(ctx.deps.db, list.filters, list), conversionKey);
  },
);

export const listOrdersRoute = defineRoute(
  {
    method: 'get',
    path: '/api/payments/v3/orders',
    operationId: 'listOrders',
    summary: 'List the orders connectors fetched (FETCH_ORDERS), newest first',
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(orderSchema) } },
  },
  authenticate('payments:read'),
  validate({ query: ordersListQuery }),
  async function listOrdersHandler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listOrders(ctx.deps.db, list.filters, list), orderKey);
  },
);

export const readConversionRoute = defineRoute(
  {
    method: 'get',
    path: '/api/payments/v3/conversions/{conversionID}',
    operationId: 'readConversion',
    summary: 'Read a conversion',
    tags,
    responses: { 200: { description: 'Conversion', schema: dataOf(conversionSchema) } },
  },
  authenticate('payments:read'),
  validate({ params: idParams('conversionID') }),
  async function readConversionHandler(ctx) {
    ctx.body = { data: await getConversion(ctx.deps.db, ctx.state.input.params.conversionID) };
  },
);

export const readOrderRoute = defineRoute(
  {
    method: 'get',
    path: '/api/payments/v3/orders/{orderID}',
    operationId: 'readOrder',
    summary: 'Read an order with its adjustments (newest first)',
    tags,
    responses: { 200: { description: 'Order', schema: dataOf(orderSchema) } },
  },
  authenticate('payments:read'),
  validate({ params: idParams('orderID') }),
  async function readOrderHandler(ctx) {
    ctx.body = { data: await getOrder(ctx.deps.db, ctx.state.input.params.orderID) };
  },
);

export const conversionOrderRoutes = [listConversionsRoute, listOrdersRoute, readConversionRoute, readOrderRoute];
