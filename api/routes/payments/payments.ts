import { createManualPayment, getPayment, updatePaymentMetadata } from '../../../areas/payments';
import { listPaymentsJson } from '../../../areas/payments';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelopeJson } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import { idParams, metadataBody, paymentSchema, paymentsListQuery } from '../../schemas/payments';
import { manualPaymentInputSchema, v3MetadataBody, v3PaymentSchema, v3PaymentsListQuery } from '../../schemas/payments-v3';
import { noContent, tags } from './common';

export const listPaymentsRoute = defineRoute(
  {
    method: 'get',
    path: '/api/payments/payments',
    operationId: 'listPayments',
    summary: 'List payments (op 7)',
    tags,
    description: 'pageSize 1..1000 (default 15), cursor alone, sort `field:asc|desc` (default date:desc), query: a JSON filter.',
    responses: { 200: { description: 'Cursor of payments', schema: cursorOf(paymentSchema) } },
  },
  authenticate('payments:read'),
  validate({ query: paymentsListQuery }),
  async function listPaymentsHandler(ctx) {
    const list = ctx.state.input.list;
    const page = await listPaymentsJson(ctx.deps.db, list.filters, list);
    ctx.type = 'application/json';
    ctx.body = cursorEnvelopeJson(list, page);
  },
);

export const readPaymentRoute = defineRoute(
  {
    method: 'get',
    path: '/api/payments/payments/{paymentId}',
    operationId: 'readPayment',
    summary: 'Read a payment',
    tags,
    responses: { 200: { description: 'Payment', schema: dataOf(paymentSchema) } },
  },
  authenticate('payments:read'),
  validate({ params: idParams('paymentId') }),
  async function readPaymentHandler(ctx) {
    ctx.body = { data: await getPayment(ctx.deps.db, ctx.state.input.params.paymentId) };
  },
);

export const updatePaymentMetadataRoute = defineRoute(
  {
    method: 'patch',
    path: '/api/payments/payments/{paymentId}/metadata',
    operationId: 'updatePaymentMetadata',
    summary: 'Merge metadata into a payment',
    tags,
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({ params: idParams('paymentId'), body: metadataBody }),
  async function updatePaymentMetadataHandler(ctx) {
    await updatePaymentMetadata(ctx.deps.db, ctx.state.input.params.paymentId, ctx.state.input.body);
    ctx.status = 204;
  },
);

export const paymentRoutes = [listPaymentsRoute, readPaymentRoute, updatePaymentMetadataRoute];

const v3Base = '/api/payments/v3/payments';
const v3Params = idParams('paymentID');

export const listPaymentsV3Route = defineRoute(
  {
    method: 'get',
    path: v3Base,
    operationId: 'listPaymentsV3',
    summary: "List payments in Formance's V3Payment shape",
    tags,
    description: 'As op 7 (same sort and query), each item with adjustment ids and null for a missing source or destination account.',
    responses: { 200: { description: 'Cursor of payments', schema: cursorOf(v3PaymentSchema) } },
  },
  authenticate('payments:read'),
  validate({ query: v3PaymentsListQuery }),
  async function listPaymentsV3Handler(ctx) {
    const list = ctx.state.input.list;
    const page = await listPaymentsJson(ctx.deps.db, list.filters, list, { v3: true });
    ctx.type = 'application/json';
    ctx.body = cursorEnvelopeJson(list, page);
  },
);

export const readPaymentV3Route = defineRoute(
  {
    method: 'get',
    path: `${v3Base}/{paymentID}`,
    operationId: 'readPaymentV3',
    summary: 'Read a payment (V3Payment)',
    tags,
    responses: { 200: { description: 'Payment', schema: dataOf(v3PaymentSchema) } },
  },
  authenticate('payments:read'),
  validate({ params: v3Params }),
  async function readPaymentV3Handler(ctx) {
    ctx.body = { data: await getPayment(ctx.deps.db, ctx.state.input.params.paymentID, { v3: true }) };
  },
);

export const createPaymentRoute = defineRoute(
  {
    method: 'post',
    path: v3Base,
    operationId: 'createPayment',
    summary: 'Record a payment of a connector (needs ALLOW_FORMANCE_PAYMENT_CREATION)',
    tags,
    responses: { 201: { description: 'Recorded', schema: dataOf(v3PaymentSchema) } },
  },
  authenticate('payments:write'),
  validate({ body: manualPaymentInputSchema }),
  async function createPaymentHandler(ctx) {
    ctx.status = 201;
    const body = ctx.state.input.body;
    const input = {
      ...body,
      amount: BigInt(body.amount),
      initialAmount: BigInt(body.initialAmount),
      adjustments: body.adjustments?.map((a) => ({ ...a, amount: a.amount === undefined ? undefined : BigInt(a.amount) })),
    };
    ctx.body = { data: await createManualPayment(ctx.deps.db, input) };
  },
);

export const updatePaymentMetadataV3Route = defineRoute(
  {
    method: 'patch',
    path: `${v3Base}/{paymentID}/metadata`,
    operationId: 'updatePaymentMetadataV3',
    summary: "Merge `metadata` into a payment's",
    tags,
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({ params: v3Params, body: v3MetadataBody }),
  async function updatePaymentMetadataV3Handler(ctx) {
    await updatePaymentMetadata(ctx.deps.db, ctx.state.input.params.paymentID, ctx.state.input.body.metadata ?? {});
    ctx.status = 204;
  },
);

export const paymentV3Routes = [listPaymentsV3Route, readPaymentV3Route, createPaymentRoute, updatePaymentMetadataV3Route];
