import type { Executor } from '../../db/knex';
import { ensureLedger, listTransactions, type LedgerTransaction } from '../ledger';
import type { Page, PageRequest } from '../../db/pagination';
import { WALLETS_LEDGER } from './chart';
import { getWalletRow } from './wallets';

/**
 * Wallet transactions (op 9), newest first: the ledger's transactions tagged `wallets/transaction`; with `walletID`,
 * those touching any balance account of that wallet (`wallets:{id}:*`). Keyset pages on txid, so concurrent writes never shift a page.
 * @throws ApiError NOT_FOUND (wallet)
 */
export async function listWalletTransactions(db: Executor, filters: { walletID?: string }, page: PageRequest): Promise<Page<LedgerTransaction>> {
  await ensureLedger(db, WALLETS_LEDGER);
  if (filters.walletID) await getWalletRow(db, filters.walletID);
  const account = filters.walletID ? `wallets:${filters.walletID}:` : undefined;
  return listTransactions(db, WALLETS_LEDGER, { metadata: { 'wallets/transaction': 'true' }, ...(account ? { account } : {}) }, page);
}

/** The spec's WalletTransaction. */
export const walletTransactionView = (tx: LedgerTransaction) => ({
  ledger: tx.ledger,
  id: tx.id,
  timestamp: tx.timestamp,
  postings: tx.postings,
  reference: tx.reference ?? '',
  metadata: tx.metadata,
  preCommitVolumes: tx.preCommitVolumes,
  postCommitVolumes: tx.postCommitVolumes,
});
