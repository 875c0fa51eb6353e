import { balanceV1Key, createAccountV1, createPaymentV1, getAccountV1, listAccountBalancesV1, listAccountsJson } from '../../../areas/payments';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope, cursorEnvelopeJson } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import { idParams, paymentSchema } from '../../schemas/payments';
import {
  accountInputV1Schema,
  accountsListV1Query,
  accountV1Schema,
  balancesV1Query,
  balanceV1Schema,
  paymentInputV1Schema,
} from '../../schemas/payments-v1';
import { tags } from './common';

/**
 * Formance's payments v1 writes of provider data (createPayment, createAccount) and its account reads. Listing and
 * reading payments and merging their metadata are the spec's routes (payments.ts), which v1 shares.
 */
export const createPaymentV1Route = defineRoute(
  {
    method: 'post',
    path: '/api/payments/payments',
    operationId: 'createPaymentV1',
    summary: 'Record a payment on a connector (v1)',
    tags,
    description: "As if the connector's provider had reported it: the same reference again updates that payment.",
    responses: { 200: { description: 'The payment', schema: dataOf(paymentSchema) } },
  },
  authenticate('payments:write'),
  validate({ body: paymentInputV1Schema }),
  async function createPaymentV1Handler(ctx) {
    const body = ctx.state.input.body;
    ctx.body = { data: await createPaymentV1(ctx.deps.db, { ...body, amount: BigInt(body.amount) }) };
  },
);

export const createAccountV1Route = defineRoute(
  {
    method: 'post',
    path: '/api/payments/accounts',
    operationId: 'createAccountV1',
    summary: 'Record an account on a connector (v1)',
    tags,
    responses: { 200: { description: 'The account', schema: dataOf(accountV1Schema) } },
  },
  authenticate('payments:write'),
  validate({ body: accountInputV1Schema }),
  async function createAccountV1Handler(ctx) {
    ctx.body = { data: await createAccountV1(ctx.deps.db, ctx.state.input.body) };
  },
);

export const listAccountsV1Route = defineRoute(
  {
    method: 'get',
    path: '/api/payments/accounts',
    operationId: 'listAccountsV1',
    summary: 'Accounts, newest first (v1)',
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(accountV1Schema) } },
  },
  authenticate('payments:read'),
  validate({ query: accountsListV1Query }),
  async function listAccountsV1Handler(ctx) {
    const list = ctx.state.input.list;
    const page = await listAccountsJson(ctx.deps.db, {}, list, 'v1');
    ctx.type = 'application/json';
    ctx.body = cursorEnvelopeJson(list, page);
  },
);

export const readAccountV1Route = defineRoute(
  {
    method: 'get',
    path: '/api/payments/accounts/{accountId}',
    operationId: 'readAccountV1',
    summary: 'An account (v1)',
    tags,
    responses: { 200: { description: 'Account', schema: dataOf(accountV1Schema) } },
  },
  authenticate('payments:read'),
  validate({ params: idParams('accountId') }),
  async function readAccountV1Handler(ctx) {
    ctx.body = { data: await getAccountV1(ctx.deps.db, ctx.state.input.params.accountId) };
  },
);

export const accountBalancesV1Route = defineRoute(
  {
    method: 'get',
    path: '/api/payments/accounts/{accountId}/balances',
    operationId: 'listAccountBalancesV1',
    summary: "An account's last fetched balances, by asset (v1)",
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(balanceV1Schema) } },
  },
  authenticate('payments:read'),
  validate({ params: idParams('accountId'), query: balancesV1Query }),
  async function accountBalancesV1Handler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listAccountBalancesV1(ctx.deps.db, ctx.state.input.params.accountId, list.filters, list), balanceV1Key);
  },
);

export const paymentV1Routes = [createPaymentV1Route, createAccountV1Route, listAccountsV1Route, readAccountV1Route, accountBalancesV1Route];
