import {
  addTransactionMetadataV1,
  countTransactions,
  createTransactionV1,
  createTransactionsV1,
  getTransactionJson,
  listTransactions,
  revertTransactionV1,
  v1TransactionView,
  type LedgerTransaction,
} from '../../../areas/ledger';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf, metadataSchema } from '../../schemas/common';
import { countTransactionsQuery, createTransactionBodySchema, ledgerParams, txParams, v1TransactionSchema } from '../../schemas/ledger';
import { createTransactionsV1BodySchema, listTransactionsV1Query, previewQuery, revertV1Query } from '../../schemas/ledger-v1';
import { idempotencyHeader, idempotencyHitHeader, idempotencyKeyOf, toCreateInput } from './input';
import { transactionFiltersOf } from './transactions';
import { inV1Terms } from './v1-errors';

const tags = ['ledger'];
const countHeader = {
  Count: { description: 'How many transactions the list would return over all its pages.', schema: { type: 'integer', minimum: 0 } },
};

/** v1 create: the orchestration stage CreateTransaction's output shape, `{data: [tx]}` with `txid`. `preview` is v1's dryRun. */
export const createTransactionV1Route = defineRoute(
  {
    method: 'post',
    path: '/api/ledger/{ledger}/transactions',
    operationId: 'createTransactionV1',
    summary: 'Create a transaction (v1 path): answers `{data: [tx]}` with `txid`; creates the ledger when missing',
    tags,
    headers: idempotencyHeader,
    responses: { 200: { description: 'Committed', schema: dataOf({ type: 'array', items: v1TransactionSchema }), headers: idempotencyHitHeader } },
  },
  authenticate('ledger:write'),
  validate({ params: ledgerParams, query: previewQuery, body: createTransactionBodySchema }),
  async function createTransactionV1Handler(ctx) {
    const { params, query, body } = ctx.state.input;
    const options = { dryRun: query.preview === true, idempotencyKey: idempotencyKeyOf(ctx) };
    const result = await inV1Terms(() => createTransactionV1(ctx.deps.db, params.ledger, toCreateInput(body), options));
    if (result.idempotencyHit) ctx.set('Idempotency-Hit', 'true');
    ctx.body = { data: [v1TransactionView(result.transaction)] };
  },
);

/** Before the list: Koa's router would otherwise answer HEAD with the GET list. 200, not 204: the SDK's v1 count expects 200. */
export const countTransactionsV1Route = defineRoute(
  {
    method: 'head',
    path: '/api/ledger/{ledger}/transactions',
    operationId: 'countTransactionsV1',
    summary: 'Count the transactions a v1 list would return (`Count` header)',
    tags,
    responses: { 200: { description: 'Counted', headers: countHeader } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams, query: countTransactionsQuery }),
  async function countTransactionsV1Handler(ctx) {
    ctx.set('Count', String(await countTransactions(ctx.deps.db, ctx.state.input.params.ledger, transactionFiltersOf(ctx.state.input.query))));
    ctx.status = 200;
  },
);

export const listTransactionsV1Route = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/{ledger}/transactions',
    operationId: 'listTransactionsV1',
    summary: 'List transactions, newest first (v1: `txid`, volumes)',
    tags,
    responses: { 200: { description: 'Transactions', schema: cursorOf(v1TransactionSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams, query: listTransactionsV1Query }),
  async function listTransactionsV1Handler(ctx) {
    const list = ctx.state.input.list;
    const { after, ...filters } = list.filters;
    const page = await listTransactions(
      ctx.deps.db,
      ctx.state.input.params.ledger,
      { ...transactionFiltersOf(filters), before: after !== undefined ? BigInt(after) : undefined },
      list,
    );
    ctx.body = cursorEnvelope(list, page, (tx: LedgerTransaction) => [tx.id.toString()], v1TransactionView);
  },
);

/** Op 11: always with `txid` and the pre/post-commit volumes of the accounts and assets the transaction touched. */
export const readTransactionV1Route = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/{ledger}/transactions/{txid}',
    operationId: 'getTransactionV1',
    summary: 'Read a ledger transaction by txid, with pre- and post-commit volumes (op 11)',
    tags,
    responses: { 200: { description: 'Transaction', schema: dataOf(v1TransactionSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: txParams('txid') }),
  async function readTransactionV1Handler(ctx) {
    const { ledger, txid } = ctx.state.input.params;
    ctx.type = 'application/json';
    ctx.body = `{"data":${await getTransactionJson(ctx.deps.db, ledger, BigInt(txid), 'v1')}}`;
  },
);

export const createTransactionsV1Route = defineRoute(
  {
    method: 'post',
    path: '/api/ledger/{ledger}/transactions/batch',
    operationId: 'createTransactionsV1',
    summary: 'Create transactions in order, all or nothing (v1 batch)',
    description:
      'One database transaction: the first failing transaction rolls back the whole batch; its error names it (`transactions[i]: ...`, `errorDetails.index`).',
    tags,
    responses: { 200: { description: 'Committed, in the order sent', schema: dataOf({ type: 'array', items: v1TransactionSchema }) } },
  },
  authenticate('ledger:write'),
  validate({ params: ledgerParams, body: createTransactionsV1BodySchema }),
  async function createTransactionsV1Handler(ctx) {
    const { params, body } = ctx.state.input;
    const created = await inV1Terms(() => createTransactionsV1(ctx.deps.db, params.ledger, body.transactions.map(toCreateInput)));
    ctx.body = { data: created.map(v1TransactionView) };
  },
);

export const revertTransactionV1Route = defineRoute(
  {
    method: 'post',
    path: '/api/ledger/{ledger}/transactions/{txid}/revert',
    operationId: 'revertTransactionV1',
    summary: 'Revert a transaction (v1)',
    tags,
    responses: { 201: { description: 'The revert transaction', schema: dataOf(v1TransactionSchema) } },
  },
  authenticate('ledger:write'),
  validate({ params: txParams('txid'), query: revertV1Query }),
  async function revertTransactionV1Handler(ctx) {
    const { params, query } = ctx.state.input;
    const revert = await inV1Terms(() =>
      revertTransactionV1(ctx.deps.db, params.ledger, BigInt(params.txid), { disableChecks: query.disableChecks === true }),
    );
    ctx.status = 201;
    ctx.body = { data: v1TransactionView(revert) };
  },
);

export const addTransactionMetadataV1Route = defineRoute(
  {
    method: 'post',
    path: '/api/ledger/{ledger}/transactions/{txid}/metadata',
    operationId: 'addTransactionMetadataV1',
    summary: "Merge keys into a transaction's metadata (v1)",
    tags,
    responses: { 204: { description: 'Saved' } },
  },
  authenticate('ledger:write'),
  validate({ params: txParams('txid'), body: metadataSchema }),
  async function addTransactionMetadataV1Handler(ctx) {
    const { ledger, txid } = ctx.state.input.params;
    await inV1Terms(() => addTransactionMetadataV1(ctx.deps.db, ledger, BigInt(txid), ctx.state.input.body));
    ctx.status = 204;
  },
);

export const transactionV1Routes = [
  createTransactionV1Route,
  countTransactionsV1Route,
  listTransactionsV1Route,
  createTransactionsV1Route,
  readTransactionV1Route,
  revertTransactionV1Route,
  addTransactionMetadataV1Route,
];
