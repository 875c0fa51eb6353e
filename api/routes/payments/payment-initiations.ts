import { createPaymentInitiation } from '../../../areas/payments';
import { approvePaymentInitiation, deletePaymentInitiation, rejectPaymentInitiation, retryPaymentInitiation } from '../../../areas/payments';
import { getPaymentInitiationDetails, initiationKey, listPaymentInitiations } from '../../../areas/payments';
import {
  initiationAdjustmentKey,
  initiationPaymentKey,
  listInitiationAdjustments,
  listInitiationPayments,
  presentInitiationAdjustment,
} from '../../../areas/payments';
import { reversePaymentInitiation } from '../../../areas/payments';
import type { AppContext } from '../../context';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import {
  createQuery,
  idParams,
  initiationAdjustmentSchema,
  initiationCreatedSchema,
  initiationInputSchema,
  initiationSchema,
  reverseInputSchema,
  taskSchema,
} from '../../schemas/payments';
import { initiationsListQuery, reversalStartedSchema, v3PaymentSchema, v3PlainListQuery } from '../../schemas/payments-v3';
import { idempotencyHeader, idempotencyKey, noContent, tags, temporalOf } from './common';

const base = '/api/payments/v3/payment-initiations';
const params = idParams('paymentInitiationID');
const deps = (ctx: Pick<AppContext, 'deps'>) => ({ db: ctx.deps.db, temporal: temporalOf(ctx) });

export const createInitiationRoute = defineRoute(
  {
    method: 'post',
    path: base,
    operationId: 'createPaymentInitiation',
    summary: 'Create a transfer or payout through a connector',
    tags,
    headers: idempotencyHeader,
    description:
      'WAITING_FOR_VALIDATION until approved; with `noValidation=true` its execution starts at once on Temporal (taskID is the workflow id).',
    responses: { 202: { description: 'Accepted', schema: dataOf(initiationCreatedSchema) } },
  },
  authenticate('payments:write'),
  validate({ query: createQuery, body: initiationInputSchema }),
  async function createInitiationHandler(ctx) {
    const { body, query } = ctx.state.input;
    const input = { ...body, amount: BigInt(body.amount), scheduledAt: body.scheduledAt ? new Date(body.scheduledAt) : undefined };
    ctx.status = 202;
    ctx.body = {
      data: await createPaymentInitiation(deps(ctx), input, { noValidation: query.noValidation === true, idempotencyKey: idempotencyKey(ctx) }),
    };
  },
);

export const readInitiationRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/{paymentInitiationID}`,
    operationId: 'readPaymentInitiation',
    summary: 'Read a payment initiation with its adjustments',
    tags,
    responses: { 200: { description: 'Payment initiation', schema: dataOf(initiationSchema) } },
  },
  authenticate('payments:read'),
  validate({ params }),
  async function readInitiationHandler(ctx) {
    ctx.body = { data: await getPaymentInitiationDetails(ctx.deps.db, ctx.state.input.params.paymentInitiationID) };
  },
);

export const listInitiationsRoute = defineRoute(
  {
    method: 'get',
    path: base,
    operationId: 'listPaymentInitiations',
    summary: 'List payment initiations, newest first',
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(initiationSchema) } },
  },
  authenticate('payments:read'),
  validate({ query: initiationsListQuery }),
  async function listInitiationsHandler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listPaymentInitiations(ctx.deps.db, list.filters, list), initiationKey);
  },
);

export const approveInitiationRoute = defineRoute(
  {
    method: 'post',
    path: `${base}/{paymentInitiationID}/approve`,
    operationId: 'approvePaymentInitiation',
    summary: 'Approve: execute it on Temporal through the connector (only WAITING_FOR_VALIDATION)',
    tags,
    responses: { 202: { description: 'Execution started', schema: dataOf(taskSchema) } },
  },
  authenticate('payments:write'),
  validate({ params }),
  async function approveInitiationHandler(ctx) {
    ctx.status = 202;
    ctx.body = { data: { taskID: await approvePaymentInitiation(deps(ctx), ctx.state.input.params.paymentInitiationID) } };
  },
);

export const rejectInitiationRoute = defineRoute(
  {
    method: 'post',
    path: `${base}/{paymentInitiationID}/reject`,
    operationId: 'rejectPaymentInitiation',
    summary: 'Reject (only WAITING_FOR_VALIDATION)',
    tags,
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({ params }),
  async function rejectInitiationHandler(ctx) {
    await rejectPaymentInitiation(ctx.deps.db, ctx.state.input.params.paymentInitiationID);
    ctx.status = 204;
  },
);

export const retryInitiationRoute = defineRoute(
  {
    method: 'post',
    path: `${base}/{paymentInitiationID}/retry`,
    operationId: 'retryPaymentInitiation',
    summary: 'Retry a FAILED initiation as a new attempt',
    tags,
    responses: { 202: { description: 'Execution started', schema: dataOf(taskSchema) } },
  },
  authenticate('payments:write'),
  validate({ params }),
  async function retryInitiationHandler(ctx) {
    ctx.status = 202;
    ctx.body = { data: { taskID: await retryPaymentInitiation(deps(ctx), ctx.state.input.params.paymentInitiationID) } };
  },
);

export const deleteInitiationRoute = defineRoute(
  {
    method: 'delete',
    path: `${base}/{paymentInitiationID}`,
    operationId: 'deletePaymentInitiation',
    summary: 'Delete a payment initiation (op 6; only WAITING_FOR_VALIDATION, else 400)',
    tags,
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({ params }),
  async function deleteInitiationHandler(ctx) {
    await deletePaymentInitiation(ctx.deps.db, ctx.state.input.params.paymentInitiationID);
    ctx.status = 204;
  },
);

export const listInitiationAdjustmentsRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/{paymentInitiationID}/adjustments`,
    operationId: 'listPaymentInitiationAdjustments',
    summary: "A payment initiation's status changes, newest first",
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(initiationAdjustmentSchema) } },
  },
  authenticate('payments:read'),
  validate({ params, query: v3PlainListQuery }),
  async function listInitiationAdjustmentsHandler(ctx) {
    const list = ctx.state.input.list;
    const page = await listInitiationAdjustments(ctx.deps.db, ctx.state.input.params.paymentInitiationID, list);
    ctx.body = cursorEnvelope(list, page, initiationAdjustmentKey, presentInitiationAdjustment);
  },
);

export const listInitiationPaymentsRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/{paymentInitiationID}/payments`,
    operationId: 'listPaymentInitiationRelatedPayments',
    summary: 'The payments a payment initiation produced (V3Payment)',
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(v3PaymentSchema) } },
  },
  authenticate('payments:read'),
  validate({ params, query: v3PlainListQuery }),
  async function listInitiationPaymentsHandler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(
      list,
      await listInitiationPayments(ctx.deps.db, ctx.state.input.params.paymentInitiationID, list),
      initiationPaymentKey,
    );
  },
);

export const reverseInitiationRoute = defineRoute(
  {
    method: 'post',
    path: `${base}/{paymentInitiationID}/reverse`,
    operationId: 'reversePaymentInitiation',
    summary: 'Reverse a PROCESSED initiation, wholly or partly, at its provider',
    tags,
    description:
      "Checked at once (the connector's REVERSE_TRANSFER / REVERSE_PAYOUT, the status, the asset, the amount left to reverse); " +
      'executed on Temporal (taskID is the workflow id). The same reference again answers the same reversal.',
    responses: { 202: { description: 'Reversal started', schema: dataOf(reversalStartedSchema) } },
  },
  authenticate('payments:write'),
  validate({ params, body: reverseInputSchema }),
  async function reverseInitiationHandler(ctx) {
    const {
      body,
      params: { paymentInitiationID },
    } = ctx.state.input;
    ctx.status = 202;
    ctx.body = { data: await reversePaymentInitiation(deps(ctx), paymentInitiationID, { ...body, amount: BigInt(body.amount) }) };
  },
);

export const paymentInitiationRoutes = [
  listInitiationAdjustmentsRoute,
  listInitiationPaymentsRoute,
  reverseInitiationRoute,
  createInitiationRoute,
  readInitiationRoute,
  listInitiationsRoute,
  approveInitiationRoute,
  rejectInitiationRoute,
  retryInitiationRoute,
  deleteInitiationRoute,
];
