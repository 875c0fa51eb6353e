import { balanceKey, createManualAccount, getAccount, listAccountBalances, listAccountsJson } from '../../../areas/payments';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope, cursorEnvelopeJson } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import { idParams } from '../../schemas/payments';
import { accountSchema, accountsListQuery, balanceSchema, balancesListQuery, manualAccountInputSchema } from '../../schemas/payments-v3';
import { tags } from './common';

const base = '/api/payments/v3/accounts';
const params = idParams('accountID');

export const listAccountsRoute = defineRoute(
  {
    method: 'get',
    path: base,
    operationId: 'listAccounts',
    summary: 'List accounts (fetched and recorded), newest first',
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(accountSchema) } },
  },
  authenticate('payments:read'),
  validate({ query: accountsListQuery }),
  async function listAccountsHandler(ctx) {
    const list = ctx.state.input.list;
    const page = await listAccountsJson(ctx.deps.db, list.filters, list, 'v3');
    ctx.type = 'application/json';
    ctx.body = cursorEnvelopeJson(list, page);
  },
);

export const readAccountRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/{accountID}`,
    operationId: 'readAccount',
    summary: 'Read an account',
    tags,
    responses: { 200: { description: 'Account', schema: dataOf(accountSchema) } },
  },
  authenticate('payments:read'),
  validate({ params }),
  async function readAccountHandler(ctx) {
    ctx.body = { data: await getAccount(ctx.deps.db, ctx.state.input.params.accountID) };
  },
);

export const createAccountRoute = defineRoute(
  {
    method: 'post',
    path: base,
    operationId: 'createAccount',
    summary: 'Record an account of a connector (needs ALLOW_FORMANCE_ACCOUNT_CREATION)',
    tags,
    responses: { 201: { description: 'Recorded', schema: dataOf(accountSchema) } },
  },
  authenticate('payments:write'),
  validate({ body: manualAccountInputSchema }),
  async function createAccountHandler(ctx) {
    ctx.status = 201;
    ctx.body = { data: await createManualAccount(ctx.deps.db, ctx.state.input.body) };
  },
);

export const accountBalancesRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/{accountID}/balances`,
    operationId: 'listAccountBalances',
    summary: "An account's last fetched balance per asset",
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(balanceSchema) } },
  },
  authenticate('payments:read'),
  validate({ params, query: balancesListQuery }),
  async function accountBalancesHandler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listAccountBalances(ctx.deps.db, ctx.state.input.params.accountID, list.filters, list), balanceKey);
  },
);

export const accountRoutes = [listAccountsRoute, readAccountRoute, createAccountRoute, accountBalancesRoute];
