import { createBalance, getBalance, listBalances } from '../../../areas/wallets';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import { balanceParams, balanceSchema, balanceWithAssetsSchema, createBalanceBody, walletParams } from '../../schemas/wallets';

const tags = ['wallets'];

export const createBalanceRoute = defineRoute(
  {
    method: 'post',
    path: '/api/wallets/wallets/{id}/balances',
    operationId: 'createBalance',
    summary: 'Create a named balance (optional expiry and priority)',
    tags,
    responses: { 201: { description: 'Created', schema: dataOf(balanceSchema) } },
  },
  authenticate('wallets:write'),
  validate({ params: walletParams, body: createBalanceBody }),
  async function createBalanceHandler(ctx) {
    const { params, body } = ctx.state.input;
    ctx.status = 201;
    ctx.body = {
      data: await createBalance(ctx.deps.db, params.id, {
        name: body.name,
        priority: body.priority,
        ...(body.expiresAt ? { expiresAt: new Date(body.expiresAt) } : {}),
      }),
    };
  },
);

export const listBalancesRoute = defineRoute(
  {
    method: 'get',
    path: '/api/wallets/wallets/{id}/balances',
    operationId: 'listBalances',
    summary: "List a wallet's balances, `main` first, in one page (Formance's cursor envelope)",
    tags,
    responses: { 200: { description: 'Balances', schema: cursorOf(balanceSchema) } },
  },
  authenticate('wallets:read'),
  validate({ params: walletParams }),
  async function listBalancesHandler(ctx) {
    // A wallet has few balances: Formance answers them all in one page, never with a next cursor.
    const data = await listBalances(ctx.deps.db, ctx.state.input.params.id);
    ctx.body = { cursor: { pageSize: data.length, hasMore: false, previous: '', next: '', data } };
  },
);

export const readBalanceRoute = defineRoute(
  {
    method: 'get',
    path: '/api/wallets/wallets/{id}/balances/{balanceName}',
    operationId: 'getBalance',
    summary: 'Read a balance with its assets',
    tags,
    responses: { 200: { description: 'Balance', schema: dataOf(balanceWithAssetsSchema) } },
  },
  authenticate('wallets:read'),
  validate({ params: balanceParams }),
  async function readBalanceHandler(ctx) {
    ctx.body = { data: await getBalance(ctx.deps.db, ctx.state.input.params.id, ctx.state.input.params.balanceName) };
  },
);

export const balanceRoutes = [createBalanceRoute, listBalancesRoute, readBalanceRoute];
