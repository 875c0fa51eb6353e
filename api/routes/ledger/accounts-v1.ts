import {
  addAccountMetadataV1,
  aggregateBalances,
  countAccounts,
  getAccount,
  listAccounts,
  v1AccountView,
  v1AccountWithVolumesView,
  v1BalancesView,
  type LedgerAccount,
} from '../../../areas/ledger';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf, mapSchema, metadataSchema } from '../../schemas/common';
import { accountParams, countAccountsQuery, ledgerParams, metadataFilters } from '../../schemas/ledger';
import {
  aggregateBalancesV1Query,
  balancesV1Query,
  listAccountsV1Query,
  v1AccountSchema,
  v1AccountWithVolumesSchema,
  v1BalancesItemSchema,
} from '../../schemas/ledger-v1';
import { inV1Terms } from './v1-errors';

const tags = ['ledger'];
const countHeader = {
  Count: { description: 'How many accounts the list would return over all its pages.', schema: { type: 'integer', minimum: 0 } },
};
const byAddress = (a: LedgerAccount) => [a.address];

/** Before the list: Koa's router would otherwise answer HEAD with the GET list. */
export const countAccountsV1Route = defineRoute(
  {
    method: 'head',
    path: '/api/ledger/{ledger}/accounts',
    operationId: 'countAccountsV1',
    summary: 'Count the accounts a v1 list would return (`Count` header)',
    tags,
    responses: { 204: { description: 'Counted', headers: countHeader } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams, query: countAccountsQuery }),
  async function countAccountsV1Handler(ctx) {
    const { rest, metadata } = metadataFilters(ctx.state.input.query);
    ctx.set('Count', String(await countAccounts(ctx.deps.db, ctx.state.input.params.ledger, { address: rest.address, metadata })));
    ctx.status = 204;
  },
);

export const listAccountsV1Route = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/{ledger}/accounts',
    operationId: 'listAccountsV1',
    summary: 'List accounts by address (v1: address and metadata)',
    tags,
    responses: { 200: { description: 'Accounts', schema: cursorOf(v1AccountSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams, query: listAccountsV1Query }),
  async function listAccountsV1Handler(ctx) {
    const list = ctx.state.input.list;
    const { rest, metadata } = metadataFilters(list.filters);
    const balance = rest.balance !== undefined ? { operator: rest.balanceOperator ?? 'gte', value: BigInt(rest.balance) } : undefined;
    const page = await listAccounts(
      ctx.deps.db,
      ctx.state.input.params.ledger,
      { address: rest.address, metadata, after: rest.after, balance },
      list,
    );
    ctx.body = cursorEnvelope(list, page, byAddress, v1AccountView);
  },
);

export const readAccountV1Route = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/{ledger}/accounts/{address}',
    operationId: 'getAccountV1',
    tags,
    summary: 'Read an account with its volumes and balances (v1; an unused account has empty ones)',
    responses: { 200: { description: 'Account', schema: dataOf(v1AccountWithVolumesSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: accountParams }),
  async function readAccountV1Handler(ctx) {
    const { ledger, address } = ctx.state.input.params;
    ctx.body = { data: v1AccountWithVolumesView(await getAccount(ctx.deps.db, ledger, address)) };
  },
);

export const addAccountMetadataV1Route = defineRoute(
  {
    method: 'post',
    path: '/api/ledger/{ledger}/accounts/{address}/metadata',
    operationId: 'addAccountMetadataV1',
    summary: "Merge keys into an account's metadata (v1)",
    tags,
    responses: { 204: { description: 'Saved' } },
  },
  authenticate('ledger:write'),
  validate({ params: accountParams, body: metadataSchema }),
  async function addAccountMetadataV1Handler(ctx) {
    const { ledger, address } = ctx.state.input.params;
    await inV1Terms(() => addAccountMetadataV1(ctx.deps.db, ledger, address, ctx.state.input.body));
    ctx.status = 204;
  },
);

export const listBalancesV1Route = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/{ledger}/balances',
    operationId: 'getBalancesV1',
    summary: 'Balances per account, by address (v1)',
    tags,
    responses: { 200: { description: 'Balances', schema: cursorOf(v1BalancesItemSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams, query: balancesV1Query }),
  async function listBalancesV1Handler(ctx) {
    const list = ctx.state.input.list;
    const page = await listAccounts(ctx.deps.db, ctx.state.input.params.ledger, { address: list.filters.address, after: list.filters.after }, list);
    ctx.body = cursorEnvelope(list, page, byAddress, v1BalancesView);
  },
);

export const aggregateBalancesV1Route = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/{ledger}/aggregate/balances',
    operationId: 'getBalancesAggregatedV1',
    tags,
    summary: 'Sum of balances per asset over matching accounts (v1)',
    responses: { 200: { description: 'Balances by asset', schema: dataOf(mapSchema({ type: 'integer', format: 'bigint' })) } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams, query: aggregateBalancesV1Query }),
  async function aggregateBalancesV1Handler(ctx) {
    ctx.body = { data: await aggregateBalances(ctx.deps.db, ctx.state.input.params.ledger, { address: ctx.state.input.query.address }) };
  },
);

export const accountV1Routes = [
  countAccountsV1Route,
  listAccountsV1Route,
  readAccountV1Route,
  addAccountMetadataV1Route,
  listBalancesV1Route,
  aggregateBalancesV1Route,
];
