import { creditWallet, debitWallet } from '../../../areas/wallets';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { defineRoute } from '../../routing';
import { dataOf } from '../../schemas/common';
import { creditBody, debitBody, holdSchema, walletParams } from '../../schemas/wallets';
import { idempotencyHeader, idempotencyKeyOf } from '../ledger/input';

const tags = ['wallets'];
const amountOf = (body: { amount: { asset: string; amount: number | bigint } }) => ({ asset: body.amount.asset, amount: BigInt(body.amount.amount) });

export const creditWalletRoute = defineRoute(
  {
    method: 'post',
    path: '/api/wallets/wallets/{id}/credit',
    operationId: 'creditWallet',
    summary: 'Credit a wallet (sources default to world)',
    tags,
    headers: idempotencyHeader,
    responses: { 204: { description: 'Credited' } },
  },
  authenticate('wallets:write'),
  validate({ params: walletParams, body: creditBody }),
  async function creditWalletHandler(ctx) {
    const { params, body } = ctx.state.input;
    await creditWallet(
      ctx.deps.db,
      params.id,
      { ...body, amount: amountOf(body), timestamp: body.timestamp ? new Date(body.timestamp) : undefined },
      { idempotencyKey: idempotencyKeyOf(ctx) },
    );
    ctx.status = 204;
  },
);

export const debitWalletRoute = defineRoute(
  {
    method: 'post',
    path: '/api/wallets/wallets/{id}/debit',
    operationId: 'debitWallet',
    summary: 'Debit a wallet; with `pending: true`, create a hold instead',
    tags,
    headers: idempotencyHeader,
    responses: { 201: { description: 'Hold created (pending)', schema: dataOf(holdSchema) }, 204: { description: 'Debited' } },
  },
  authenticate('wallets:write'),
  validate({ params: walletParams, body: debitBody }),
  async function debitWalletHandler(ctx) {
    const { params, body } = ctx.state.input;
    const hold = await debitWallet(
      ctx.deps.db,
      params.id,
      { ...body, amount: amountOf(body), timestamp: body.timestamp ? new Date(body.timestamp) : undefined },
      { idempotencyKey: idempotencyKeyOf(ctx) },
    );
    if (hold) {
      ctx.status = 201;
      ctx.body = { data: hold };
    } else {
      ctx.status = 204;
    }
  },
);

export const movementRoutes = [creditWalletRoute, debitWalletRoute];
