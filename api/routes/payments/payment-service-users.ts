import {
  createPaymentServiceUser,
  deletePaymentServiceUser,
  forwardPsuBankAccount,
  getPaymentServiceUser,
  linkBankAccount,
  listPaymentServiceUsers,
  paymentServiceUserKey,
} from '../../../areas/payments';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf, objectSchema, stringSchema } from '../../schemas/common';
import { forwardInputSchema, idParams, psuInputSchema, psuSchema, taskSchema } from '../../schemas/payments';
import { v3PlainListQuery } from '../../schemas/payments-v3';
import { idempotencyHeader, idempotencyKey, noContent, tags, temporalOf } from './common';

const base = '/api/payments/v3/payment-service-users';
const params = idParams('paymentServiceUserID');

export const createPsuRoute = defineRoute(
  {
    method: 'post',
    path: base,
    operationId: 'createPaymentServiceUser',
    summary: 'Create a payment service user (op 3)',
    tags,
    headers: idempotencyHeader,
    responses: { 201: { description: 'Created', schema: dataOf({ type: 'string', format: 'uuid' }) } },
  },
  authenticate('payments:write'),
  validate({ body: psuInputSchema }),
  async function createPsuHandler(ctx) {
    ctx.status = 201;
    ctx.body = { data: await createPaymentServiceUser(ctx.deps.db, ctx.state.input.body, { idempotencyKey: idempotencyKey(ctx) }) };
  },
);

export const readPsuRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/{paymentServiceUserID}`,
    operationId: 'readPaymentServiceUser',
    summary: 'Read a payment service user (op 4)',
    tags,
    responses: { 200: { description: 'User', schema: dataOf(psuSchema) } },
  },
  authenticate('payments:read'),
  validate({ params }),
  async function readPsuHandler(ctx) {
    ctx.body = { data: await getPaymentServiceUser(ctx.deps.db, ctx.state.input.params.paymentServiceUserID) };
  },
);

export const listPsusRoute = defineRoute(
  {
    method: 'get',
    path: base,
    operationId: 'listPaymentServiceUsers',
    summary: 'List payment service users, newest first',
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(psuSchema) } },
  },
  authenticate('payments:read'),
  validate({ query: v3PlainListQuery }),
  async function listPsusHandler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listPaymentServiceUsers(ctx.deps.db, list), paymentServiceUserKey);
  },
);

export const linkPsuBankAccountRoute = defineRoute(
  {
    method: 'post',
    path: `${base}/{paymentServiceUserID}/bank-accounts/{bankAccountID}`,
    operationId: 'linkPaymentServiceUserBankAccount',
    summary: 'Link a bank account to a user',
    tags,
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({
    params: objectSchema({ paymentServiceUserID: stringSchema({ minLength: 1 }), bankAccountID: stringSchema({ minLength: 1 }) }, [
      'paymentServiceUserID',
      'bankAccountID',
    ]),
  }),
  async function linkPsuBankAccountHandler(ctx) {
    await linkBankAccount(ctx.deps.db, ctx.state.input.params.paymentServiceUserID, ctx.state.input.params.bankAccountID);
    ctx.status = 204;
  },
);

export const deletePsuRoute = defineRoute(
  {
    method: 'delete',
    path: `${base}/{paymentServiceUserID}`,
    operationId: 'deletePaymentServiceUser',
    summary: 'Delete a payment service user (runs on Temporal; its bank accounts stay)',
    tags,
    responses: { 202: { description: "The deletion's task (read it with getTask)", schema: dataOf(taskSchema) } },
  },
  authenticate('payments:write'),
  validate({ params }),
  async function deletePsuHandler(ctx) {
    ctx.status = 202;
    ctx.body = { data: await deletePaymentServiceUser({ db: ctx.deps.db, temporal: temporalOf(ctx) }, ctx.state.input.params.paymentServiceUserID) };
  },
);

export const forwardPsuBankAccountRoute = defineRoute(
  {
    method: 'post',
    path: `${base}/{paymentServiceUserID}/bank-accounts/{bankAccountID}/forward`,
    operationId: 'forwardPaymentServiceUserBankAccount',
    summary: "Forward one of the user's bank accounts to a connector (runs on Temporal)",
    tags,
    responses: { 202: { description: "The forward's task (read it with getTask)", schema: dataOf(taskSchema) } },
  },
  authenticate('payments:write'),
  validate({
    params: objectSchema({ paymentServiceUserID: stringSchema({ minLength: 1 }), bankAccountID: stringSchema({ minLength: 1 }) }, [
      'paymentServiceUserID',
      'bankAccountID',
    ]),
    body: forwardInputSchema,
  }),
  async function forwardPsuBankAccountHandler(ctx) {
    const { params, body } = ctx.state.input;
    ctx.status = 202;
    ctx.body = {
      data: await forwardPsuBankAccount(
        { db: ctx.deps.db, temporal: temporalOf(ctx) },
        params.paymentServiceUserID,
        params.bankAccountID,
        body.connectorID,
      ),
    };
  },
);

export const paymentServiceUserRoutes = [
  forwardPsuBankAccountRoute,
  createPsuRoute,
  readPsuRoute,
  listPsusRoute,
  linkPsuBankAccountRoute,
  deletePsuRoute,
];
