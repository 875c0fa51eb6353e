import {
  changePoolAccount,
  createPool,
  deletePool,
  getPool,
  getPoolBalances,
  getPoolBalancesAt,
  listPools,
  poolKey,
  updatePoolQuery,
} from '../../../areas/payments';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf, objectSchema, stringSchema } from '../../schemas/common';
import { idParams, poolBalancesQuery, poolBalancesSchema, poolInputSchema, poolQueryBody, poolSchema } from '../../schemas/payments';
import { v3PlainListQuery } from '../../schemas/payments-v3';
import { idempotencyHeader, idempotencyKey, noContent, tags } from './common';

const base = '/api/payments/v3/pools';
const params = idParams('poolID');
const accountParams = objectSchema({ poolID: stringSchema({ minLength: 1 }), accountID: stringSchema({ minLength: 1 }) }, ['poolID', 'accountID']);

export const createPoolRoute = defineRoute(
  {
    method: 'post',
    path: base,
    operationId: 'createPool',
    summary: 'Create a pool of INTERNAL accounts (op 5): static (accountIDs) or dynamic (query)',
    tags,
    headers: idempotencyHeader,
    responses: { 201: { description: 'Created', schema: dataOf({ type: 'string', format: 'uuid' }) } },
  },
  authenticate('payments:write'),
  validate({ body: poolInputSchema }),
  async function createPoolHandler(ctx) {
    ctx.status = 201;
    ctx.body = { data: await createPool(ctx.deps.db, ctx.state.input.body, { idempotencyKey: idempotencyKey(ctx) }) };
  },
);

export const readPoolRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/{poolID}`,
    operationId: 'readPool',
    summary: 'Read a pool',
    tags,
    responses: { 200: { description: 'Pool', schema: dataOf(poolSchema) } },
  },
  authenticate('payments:read'),
  validate({ params }),
  async function readPoolHandler(ctx) {
    ctx.body = { data: await getPool(ctx.deps.db, ctx.state.input.params.poolID) };
  },
);

export const listPoolsRoute = defineRoute(
  {
    method: 'get',
    path: base,
    operationId: 'listPools',
    summary: 'List pools, newest first',
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(poolSchema) } },
  },
  authenticate('payments:read'),
  validate({ query: v3PlainListQuery }),
  async function listPoolsHandler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listPools(ctx.deps.db, list), poolKey);
  },
);

export const deletePoolRoute = defineRoute(
  { method: 'delete', path: `${base}/{poolID}`, operationId: 'deletePool', summary: 'Delete a pool (its accounts stay)', tags, responses: noContent },
  authenticate('payments:write'),
  validate({ params }),
  async function deletePoolHandler(ctx) {
    await deletePool(ctx.deps.db, ctx.state.input.params.poolID);
    ctx.status = 204;
  },
);

export const addPoolAccountRoute = defineRoute(
  {
    method: 'post',
    path: `${base}/{poolID}/accounts/{accountID}`,
    operationId: 'addPoolAccount',
    summary: 'Add an INTERNAL account to a pool',
    tags,
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({ params: accountParams }),
  async function addPoolAccountHandler(ctx) {
    await changePoolAccount(ctx.deps.db, ctx.state.input.params.poolID, ctx.state.input.params.accountID, 'add');
    ctx.status = 204;
  },
);

export const removePoolAccountRoute = defineRoute(
  {
    method: 'delete',
    path: `${base}/{poolID}/accounts/{accountID}`,
    operationId: 'removePoolAccount',
    summary: 'Remove an account from a pool',
    tags,
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({ params: accountParams }),
  async function removePoolAccountHandler(ctx) {
    await changePoolAccount(ctx.deps.db, ctx.state.input.params.poolID, ctx.state.input.params.accountID, 'remove');
    ctx.status = 204;
  },
);

const poolBalances = (path: string, operationId: string, summary: string) =>
  defineRoute(
    { method: 'get', path, operationId, summary, tags, responses: { 200: { description: 'Balances', schema: dataOf(poolBalancesSchema) } } },
    authenticate('payments:read'),
    validate({ params, query: poolBalancesQuery }),
    async function poolBalancesHandler(ctx) {
      const { at } = ctx.state.input.query;
      ctx.body = {
        data: at
          ? await getPoolBalancesAt(ctx.deps.db, ctx.state.input.params.poolID, new Date(at))
          : await getPoolBalances(ctx.deps.db, ctx.state.input.params.poolID),
      };
    },
  );
export const poolBalancesRoute = poolBalances(
  `${base}/{poolID}/balances`,
  'readPoolBalances',
  "Sum of the last fetched balances of the pool's accounts, per asset",
);
export const poolBalancesLatestRoute = poolBalances(
  `${base}/{poolID}/balances/latest`,
  'readPoolBalancesLatest',
  'The same sums (only the latest balances are kept)',
);

export const updatePoolQueryRoute = defineRoute(
  {
    method: 'patch',
    path: `${base}/{poolID}/query`,
    operationId: 'updatePoolQuery',
    summary: "Replace a dynamic pool's query",
    tags,
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({ params, body: poolQueryBody }),
  async function updatePoolQueryHandler(ctx) {
    await updatePoolQuery(ctx.deps.db, ctx.state.input.params.poolID, ctx.state.input.body.query);
    ctx.status = 204;
  },
);

export const poolRoutes = [
  createPoolRoute,
  readPoolRoute,
  listPoolsRoute,
  deletePoolRoute,
  addPoolAccountRoute,
  removePoolAccountRoute,
  poolBalancesRoute,
  poolBalancesLatestRoute,
  updatePoolQueryRoute,
];
