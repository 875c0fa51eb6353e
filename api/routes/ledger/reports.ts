import { countAccounts, countTransactions, ledgerStats, listVolumes, type VolumesWithBalance } from '../../../areas/ledger';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import { transactionFiltersOf } from './transactions';
import {
  countAccountsQuery,
  countTransactionsQuery,
  ledgerParams,
  ledgerStatsSchema,
  listVolumesQuery,
  metadataFilters,
  volumesWithBalanceSchema,
} from '../../schemas/ledger';

const tags = ['ledger'];
const countHeader = { Count: { description: 'How many items the list would return over all its pages.', schema: { type: 'integer', minimum: 0 } } };

/** Registered before the list routes of the same paths: Koa's router would otherwise answer HEAD with the GET list. */
export const countTransactionsRoute = defineRoute(
  {
    method: 'head',
    path: '/api/ledger/v2/{ledger}/transactions',
    operationId: 'countTransactions',
    summary: 'Count the transactions a list would return (`Count` header)',
    tags,
    responses: { 204: { description: 'Counted', headers: countHeader } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams, query: countTransactionsQuery }),
  async function countTransactionsHandler(ctx) {
    ctx.set('Count', String(await countTransactions(ctx.deps.db, ctx.state.input.params.ledger, transactionFiltersOf(ctx.state.input.query))));
    ctx.status = 204;
  },
);

export const countAccountsRoute = defineRoute(
  {
    method: 'head',
    path: '/api/ledger/v2/{ledger}/accounts',
    operationId: 'countAccounts',
    summary: 'Count the accounts a list would return (`Count` header)',
    tags,
    responses: { 204: { description: 'Counted', headers: countHeader } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams, query: countAccountsQuery }),
  async function countAccountsHandler(ctx) {
    const { rest, metadata } = metadataFilters(ctx.state.input.query);
    const count = await countAccounts(ctx.deps.db, ctx.state.input.params.ledger, { address: rest.address, metadata, query: rest.query });
    ctx.set('Count', String(count));
    ctx.status = 204;
  },
);

export const ledgerStatsRoute = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/v2/{ledger}/stats',
    operationId: 'readLedgerStats',
    summary: 'How many accounts and transactions a ledger holds',
    tags,
    responses: { 200: { description: 'Stats', schema: dataOf(ledgerStatsSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams }),
  async function ledgerStatsHandler(ctx) {
    ctx.body = { data: await ledgerStats(ctx.deps.db, ctx.state.input.params.ledger) };
  },
);

export const listVolumesRoute = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/v2/{ledger}/volumes',
    operationId: 'listVolumes',
    tags,
    summary: 'Volumes and balances per account and asset, current or over a time window',
    description:
      'Without startTime/endTime: the current volumes. With either: the sums of the postings of the transactions in [startTime, endTime). `groupBy=N` groups addresses by their first N segments.',
    responses: { 200: { description: 'Volumes', schema: cursorOf(volumesWithBalanceSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams, query: listVolumesQuery }),
  async function listVolumesHandler(ctx) {
    const list = ctx.state.input.list;
    const f = list.filters;
    const filters = {
      address: f.address,
      startTime: f.startTime ? new Date(f.startTime) : undefined,
      endTime: f.endTime ? new Date(f.endTime) : undefined,
      insertionDate: f.insertionDate,
      groupBy: f.groupBy || undefined,
      query: f.query,
    };
    const page = await listVolumes(ctx.deps.db, ctx.state.input.params.ledger, filters, list);
    ctx.body = cursorEnvelope(list, page, (v: VolumesWithBalance) => [v.account, v.asset]);
  },
);

export const countRoutes = [countTransactionsRoute, countAccountsRoute];
export const reportRoutes = [ledgerStatsRoute, listVolumesRoute];
