import { createTransaction, getTransaction, v1TransactionView } from '../../../areas/ledger';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { defineRoute } from '../../routing';
import { booleanSchema, dataOf, objectSchema } from '../../schemas/common';
import { createTransactionBodySchema, ledgerParams, txParams, v1TransactionSchema } from '../../schemas/ledger';
import { idempotencyHeader, idempotencyHitHeader, idempotencyKeyOf, toCreateInput } from './input';

const tags = ['ledger'];

/** v1 create: the orchestration stage CreateTransaction's output shape, `{data: [tx]}` with `txid`. `preview` is v1's dryRun. */
export const createTransactionV1Route = defineRoute(
  {
    method: 'post',
    path: '/api/ledger/{ledger}/transactions',
    operationId: 'createTransactionV1',
    summary: 'Create a transaction (v1 path): answers `{data: [tx]}` with `txid`',
    tags,
    headers: idempotencyHeader,
    responses: { 200: { description: 'Committed', schema: dataOf({ type: 'array', items: v1TransactionSchema }), headers: idempotencyHitHeader } },
  },
  authenticate('ledger:write'),
  validate({ params: ledgerParams, query: objectSchema({ preview: booleanSchema({ description: 'Dry run.' }) }), body: createTransactionBodySchema }),
  async function createTransactionV1Handler(ctx) {
    const { params, query, body } = ctx.state.input;
    const result = await createTransaction(ctx.deps.db, params.ledger, toCreateInput(body), { dryRun: query.preview === true, idempotencyKey: idempotencyKeyOf(ctx) });
    if (result.idempotencyHit) ctx.set('Idempotency-Hit', 'true');
    ctx.body = { data: [v1TransactionView(result.transaction)] };
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
    ctx.body = { data: v1TransactionView(await getTransaction(ctx.deps.db, ledger, BigInt(txid))) };
  },
);

export const transactionV1Routes = [createTransactionV1Route, readTransactionV1Route];
