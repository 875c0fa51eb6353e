import {
  addTransactionMetadata,
  createTransaction,
  getTransactionJson,
  listTransactions,
  revertTransaction,
  v2TransactionView,
  type LedgerTransaction,
  type TransactionFilters,
} from '../../../areas/ledger';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf, metadataSchema, type ParamOf } from '../../schemas/common';
import {
  countTransactionsQuery,
  createTransactionQuery,
  getTransactionQuery,
  ledgerParams,
  listTransactionsQuery,
  metadataFilters,
  metadataWriteQuery,
  revertBodySchema,
  revertQuery,
  txParams,
  v2PostTransactionSchema,
  v2TransactionSchema,
} from '../../schemas/ledger';
import { idempotencyHeader, idempotencyHitHeader, idempotencyKeyOf, toTransactionRequest } from './input';

const tags = ['ledger'];

export const createTransactionRoute = defineRoute(
  {
    method: 'post',
    path: '/api/ledger/v2/{ledger}/transactions',
    operationId: 'createTransaction',
    summary: 'Create a transaction from postings or a Numscript script',
    tags,
    headers: idempotencyHeader,
    responses: {
      200: {
        description: 'Committed (or, with dryRun, computed and rolled back)',
        schema: dataOf(v2TransactionSchema),
        headers: idempotencyHitHeader,
      },
    },
  },
  authenticate('ledger:write'),
  validate({ params: ledgerParams, query: createTransactionQuery, body: v2PostTransactionSchema }),
  async function createTransactionHandler(ctx) {
    const { params, query, body } = ctx.state.input;
    const { force, ...request } = toTransactionRequest(body);
    const result = await createTransaction(ctx.deps.db, params.ledger, request, {
      dryRun: query.dryRun === true,
      idempotencyKey: idempotencyKeyOf(ctx),
      force: query.force === true || force === true,
      ...(query.schemaVersion !== undefined ? { schemaVersion: query.schemaVersion } : {}),
    });
    if (result.idempotencyHit) ctx.set('Idempotency-Hit', 'true');
    ctx.body = { data: v2TransactionView(result.transaction) };
  },
);

export const listTransactionsRoute = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/v2/{ledger}/transactions',
    operationId: 'listTransactions',
    summary: 'List transactions, newest first',
    tags,
    responses: { 200: { description: 'Transactions', schema: cursorOf(v2TransactionSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams, query: listTransactionsQuery }),
  async function listTransactionsHandler(ctx) {
    const list = ctx.state.input.list;
    const page = await listTransactions(ctx.deps.db, ctx.state.input.params.ledger, transactionFiltersOf(list.filters), list);
    ctx.body = cursorEnvelope(list, page, (tx: LedgerTransaction) => [tx.id.toString()], v2TransactionView);
  },
);

/** The validated filters of the transactions list (and of its HEAD count), as the ledger service takes them. */
export function transactionFiltersOf(query: ParamOf<typeof countTransactionsQuery>): TransactionFilters {
  const { rest, metadata } = metadataFilters(query);
  return {
    ...rest,
    startTime: rest.startTime ? new Date(rest.startTime) : undefined,
    endTime: rest.endTime ? new Date(rest.endTime) : undefined,
    metadata,
  };
}

export const readTransactionRoute = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/v2/{ledger}/transactions/{id}',
    operationId: 'getTransaction',
    summary: 'Read a transaction with its volumes',
    tags,
    responses: { 200: { description: 'Transaction', schema: dataOf(v2TransactionSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: txParams('id'), query: getTransactionQuery }),
  async function readTransactionHandler(ctx) {
    const { ledger, id } = ctx.state.input.params;
    ctx.type = 'application/json';
    ctx.body = `{"data":${await getTransactionJson(ctx.deps.db, ledger, BigInt(id), 'v2')}}`;
  },
);

export const revertTransactionRoute = defineRoute(
  {
    method: 'post',
    path: '/api/ledger/v2/{ledger}/transactions/{id}/revert',
    operationId: 'revertTransaction',
    summary: 'Revert a transaction (reversed postings)',
    tags,
    responses: { 201: { description: 'The revert transaction', schema: dataOf(v2TransactionSchema) } },
  },
  authenticate('ledger:write'),
  validate({ params: txParams('id'), query: revertQuery, body: revertBodySchema, bodyRequired: false }),
  async function revertTransactionHandler(ctx) {
    const { params, query, body } = ctx.state.input;
    const revert = await revertTransaction(ctx.deps.db, params.ledger, BigInt(params.id), {
      force: query.force === true,
      atEffectiveDate: query.atEffectiveDate === true,
      dryRun: query.dryRun === true,
      ...(query.schemaVersion !== undefined ? { schemaVersion: query.schemaVersion } : {}),
      ...(body?.metadata ? { metadata: body.metadata } : {}),
    });
    ctx.status = 201;
    ctx.body = { data: v2TransactionView(revert) };
  },
);

export const addTransactionMetadataRoute = defineRoute(
  {
    method: 'post',
    path: '/api/ledger/v2/{ledger}/transactions/{id}/metadata',
    operationId: 'addTransactionMetadata',
    summary: "Merge keys into a transaction's metadata",
    tags,
    responses: { 204: { description: 'Saved' } },
  },
  authenticate('ledger:write'),
  validate({ params: txParams('id'), query: metadataWriteQuery, body: metadataSchema }),
  async function addTransactionMetadataHandler(ctx) {
    const {
      params: { ledger, id },
      query,
    } = ctx.state.input;
    await addTransactionMetadata(ctx.deps.db, ledger, BigInt(id), ctx.state.input.body, {
      dryRun: query.dryRun === true,
      ...(query.schemaVersion !== undefined ? { schemaVersion: query.schemaVersion } : {}),
    });
    ctx.status = 204;
  },
);

export const transactionRoutes = [
  createTransactionRoute,
  listTransactionsRoute,
  readTransactionRoute,
  revertTransactionRoute,
  addTransactionMetadataRoute,
];
