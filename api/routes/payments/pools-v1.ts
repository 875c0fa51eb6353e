import {
  changePoolAccount,
  createPoolV1,
  deletePool,
  getPoolBalancesV1,
  getPoolV1,
  listPoolsV1,
  poolV1Key,
  updatePoolQueryV1,
} from '../../../areas/payments';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf, objectSchema, stringSchema } from '../../schemas/common';
import { idParams } from '../../schemas/payments';
import {
  poolAccountV1Schema,
  poolBalancesV1Query,
  poolBalanceV1Schema,
  poolInputV1Schema,
  poolQueryV1Schema,
  poolsListV1Query,
  poolV1Schema,
} from '../../schemas/payments-v1';
import { noContent, tags } from './common';

/** Formance's payments v1 pools, over the same pools as v3 (static only). */
const base = '/api/payments/pools';
const params = idParams('poolId');
const accountParams = objectSchema({ poolId: stringSchema({ minLength: 1 }), accountId: stringSchema({ minLength: 1 }) }, ['poolId', 'accountId']);
const balancesSchema = { type: 'array', items: poolBalanceV1Schema };

export const createPoolV1Route = defineRoute(
  {
    method: 'post',
    path: base,
    operationId: 'createPoolV1',
    summary: 'Create a pool of INTERNAL accounts (v1)',
    tags,
    responses: { 200: { description: 'Pool', schema: dataOf(poolV1Schema) } },
  },
  authenticate('payments:write'),
  validate({ body: poolInputV1Schema }),
  async function createPoolV1Handler(ctx) {
    ctx.body = { data: await createPoolV1(ctx.deps.db, ctx.state.input.body) };
  },
);

export const listPoolsV1Route = defineRoute(
  {
    method: 'get',
    path: base,
    operationId: 'listPoolsV1',
    summary: 'Pools, newest first (v1)',
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(poolV1Schema) } },
  },
  authenticate('payments:read'),
  validate({ query: poolsListV1Query }),
  async function listPoolsV1Handler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listPoolsV1(ctx.deps.db, list), poolV1Key);
  },
);

export const readPoolV1Route = defineRoute(
  {
    method: 'get',
    path: `${base}/{poolId}`,
    operationId: 'readPoolV1',
    summary: 'A pool (v1)',
    tags,
    responses: { 200: { description: 'Pool', schema: dataOf(poolV1Schema) } },
  },
  authenticate('payments:read'),
  validate({ params }),
  async function readPoolV1Handler(ctx) {
    ctx.body = { data: await getPoolV1(ctx.deps.db, ctx.state.input.params.poolId) };
  },
);

export const deletePoolV1Route = defineRoute(
  {
    method: 'delete',
    path: `${base}/{poolId}`,
    operationId: 'deletePoolV1',
    summary: 'Delete a pool; its accounts stay (v1)',
    tags,
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({ params }),
  async function deletePoolV1Handler(ctx) {
    await deletePool(ctx.deps.db, ctx.state.input.params.poolId);
    ctx.status = 204;
  },
);

export const addPoolAccountV1Route = defineRoute(
  {
    method: 'post',
    path: `${base}/{poolId}/accounts`,
    operationId: 'addPoolAccountV1',
    summary: 'Add an INTERNAL account to a pool (v1)',
    tags,
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({ params, body: poolAccountV1Schema }),
  async function addPoolAccountV1Handler(ctx) {
    await changePoolAccount(ctx.deps.db, ctx.state.input.params.poolId, ctx.state.input.body.accountID, 'add');
    ctx.status = 204;
  },
);

export const removePoolAccountV1Route = defineRoute(
  {
    method: 'delete',
    path: `${base}/{poolId}/accounts/{accountId}`,
    operationId: 'removePoolAccountV1',
    summary: 'Remove an account from a pool (v1)',
    tags,
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({ params: accountParams }),
  async function removePoolAccountV1Handler(ctx) {
    await changePoolAccount(ctx.deps.db, ctx.state.input.params.poolId, ctx.state.input.params.accountId, 'remove');
    ctx.status = 204;
  },
);

export const poolBalancesLatestV1Route = defineRoute(
  {
    method: 'get',
    path: `${base}/{poolId}/balances/latest`,
    operationId: 'readPoolBalancesLatestV1',
    summary: "Sum of the members' last fetched balances, per asset (v1)",
    tags,
    responses: { 200: { description: 'Balances', schema: dataOf(balancesSchema) } },
  },
  authenticate('payments:read'),
  validate({ params }),
  async function poolBalancesLatestV1Handler(ctx) {
    ctx.body = { data: await getPoolBalancesV1(ctx.deps.db, ctx.state.input.params.poolId) };
  },
);

export const poolBalancesV1Route = defineRoute(
  {
    method: 'get',
    path: `${base}/{poolId}/balances`,
    operationId: 'readPoolBalancesV1',
    summary: 'Pool balances (v1): the last fetched ones, whatever `at`',
    tags,
    description: 'Only the last fetched balance of each account is kept, so `at` is accepted and the answer is the latest balances.',
    responses: { 200: { description: 'Balances', schema: dataOf(objectSchema({ balances: balancesSchema }, ['balances'])) } },
  },
  authenticate('payments:read'),
  validate({ params, query: poolBalancesV1Query }),
  async function poolBalancesV1Handler(ctx) {
    ctx.body = { data: { balances: await getPoolBalancesV1(ctx.deps.db, ctx.state.input.params.poolId) } };
  },
);

export const updatePoolQueryV1Route = defineRoute(
  {
    method: 'patch',
    path: `${base}/{poolId}/query`,
    operationId: 'updatePoolQueryV1',
    summary: "Replace a dynamic pool's query (v1; 400 for a static pool)",
    tags,
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({ params, body: poolQueryV1Schema }),
  async function updatePoolQueryV1Handler(ctx) {
    await updatePoolQueryV1(ctx.deps.db, ctx.state.input.params.poolId, ctx.state.input.body.query);
    ctx.status = 204;
  },
);

export const poolV1Routes = [
  createPoolV1Route,
  listPoolsV1Route,
  readPoolV1Route,
  deletePoolV1Route,
  addPoolAccountV1Route,
  removePoolAccountV1Route,
  poolBalancesLatestV1Route,
  poolBalancesV1Route,
  updatePoolQueryV1Route,
];
