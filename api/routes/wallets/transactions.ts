import { listWalletTransactions, walletTransactionView } from '../../../areas/wallets';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf } from '../../schemas/common';
import { listWalletTransactionsQuery, walletTransactionSchema } from '../../schemas/wallets';

export const listWalletTransactionsRoute = defineRoute(
  {
    method: 'get',
    path: '/api/wallets/transactions',
    operationId: 'listWalletTransactions',
    summary: 'List wallet transactions, newest first (op 9)',
    tags: ['wallets'],
    responses: { 200: { description: 'Wallet transactions', schema: cursorOf(walletTransactionSchema) } },
  },
  authenticate('wallets:read'),
  validate({ query: listWalletTransactionsQuery }),
  async function listWalletTransactionsHandler(ctx) {
    const list = ctx.state.input.list;
    const page = await listWalletTransactions(ctx.deps.db, list.filters, list);
    ctx.body = cursorEnvelope(list, page, (tx) => [tx.id.toString()], walletTransactionView);
  },
);
