import { countAccounts } from './accounts';
import { countTransactions } from './transactions';
import type { Executor } from '../types';

export interface LedgerStats {
  accounts: number;
  transactions: number;
}

/** How many accounts and transactions a ledger holds (Formance's ReadStats). @throws ApiError LEDGER_NOT_FOUND */
export async function ledgerStats(db: Executor, ledger: string): Promise<LedgerStats> {
  const [accounts, transactions] = await Promise.all([countAccounts(db, ledger, {}), countTransactions(db, ledger, {})]);
  return { accounts, transactions };
}
