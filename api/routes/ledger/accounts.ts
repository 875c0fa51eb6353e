import { addAccountMetadata, aggregateBalances, getAccount, listAccounts, type LedgerAccount } from '../../../areas/ledger';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { bigIntegerSchema, cursorOf, dataOf, metadataSchema } from '../../schemas/common';
import {
  accountParams,
  accountSchema,
  balancesQuery,
  getAccountQuery,
  ledgerParams,
  listAccountsQuery,
  metadataFilters,
  metadataWriteQuery,
} from '../../schemas/ledger';

const tags = ['ledger'];

export const listAccountsRoute = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/v2/{ledger}/accounts',
    operationId: 'listAccounts',
    summary: 'List accounts by address, with volumes',
    tags,
    responses: { 200: { description: 'Accounts', schema: cursorOf(accountSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams, query: listAccountsQuery }),
  async function listAccountsHandler(ctx) {
    const list = ctx.state.input.list;
    const { rest, metadata } = metadataFilters(list.filters);
    const page = await listAccounts(ctx.deps.db, ctx.state.input.params.ledger, { address: rest.address, metadata, query: rest.query }, list);
    ctx.body = cursorEnvelope(list, page, (a: LedgerAccount) => [a.address]);
  },
);

export const readAccountRoute = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/v2/{ledger}/accounts/{address}',
    operationId: 'getAccount',
    summary: 'Read an account with its volumes (an unused account has empty volumes)',
    tags,
    responses: { 200: { description: 'Account', schema: dataOf(accountSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: accountParams, query: getAccountQuery }),
  async function readAccountHandler(ctx) {
    const { ledger, address } = ctx.state.input.params;
    ctx.body = { data: await getAccount(ctx.deps.db, ledger, address) };
  },
);

export const addAccountMetadataRoute = defineRoute(
  {
    method: 'post',
    path: '/api/ledger/v2/{ledger}/accounts/{address}/metadata',
    operationId: 'addAccountMetadata',
    summary: "Merge keys into an account's metadata",
    tags,
    responses: { 204: { description: 'Saved' } },
  },
  authenticate('ledger:write'),
  validate({ params: accountParams, query: metadataWriteQuery, body: metadataSchema }),
  async function addAccountMetadataHandler(ctx) {
    const {
      params: { ledger, address },
      query,
    } = ctx.state.input;
    await addAccountMetadata(ctx.deps.db, ledger, address, ctx.state.input.body, {
      dryRun: query.dryRun === true,
      ...(query.schemaVersion !== undefined ? { schemaVersion: query.schemaVersion } : {}),
    });
    ctx.status = 204;
  },
);

export const aggregateBalancesRoute = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/v2/{ledger}/aggregate/balances',
    operationId: 'getBalancesAggregated',
    summary: 'Sum of balances per asset over matching accounts (over the whole ledger each asset sums to 0)',
    tags,
    responses: {
      200: {
        description: 'Balances by asset',
        schema: dataOf({ type: 'object', additionalProperties: { ...bigIntegerSchema('Balance'), minimum: undefined } }),
      },
    },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams, query: balancesQuery }),
  async function aggregateBalancesHandler(ctx) {
    const { address, query, pit, useInsertionDate } = ctx.state.input.query;
    ctx.body = {
      data: await aggregateBalances(ctx.deps.db, ctx.state.input.params.ledger, {
        address,
        query,
        ...(pit ? { pit: new Date(pit) } : {}),
        useInsertionDate,
      }),
    };
  },
);

export const accountRoutes = [listAccountsRoute, readAccountRoute, addAccountMetadataRoute, aggregateBalancesRoute];
