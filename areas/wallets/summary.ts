import type { Executor } from '../../db/knex';
import { getBalance, listBalances, type WalletBalance } from './balances';
import { heldFunds } from './holds';

type Funds = Record<string, bigint>;

export interface WalletSummary {
  balances: Array<WalletBalance & { assets: Funds }>;
  availableFunds: Funds;
  expiredFunds: Funds;
  expirableFunds: Funds;
  holdFunds: Funds;
}

const add = (into: Funds, assets: Funds): void => {
  for (const [asset, amount] of Object.entries(assets)) into[asset] = (into[asset] ?? 0n) + amount;
};

/**
 * Formance's wallet summary: an expired balance's funds are no longer available (a debit over `*` skips it), a
 * balance with an expiry that has not passed is available and also counted as expirable; held funds are what the open
 * holds still hold, already out of every balance. @throws ApiError NOT_FOUND
 */
export async function getWalletSummary(db: Executor, walletId: string, now = new Date()): Promise<WalletSummary> {
  const balances = await Promise.all((await listBalances(db, walletId)).map((b) => getBalance(db, walletId, b.name)));
  const summary: WalletSummary = { balances, availableFunds: {}, expiredFunds: {}, expirableFunds: {}, holdFunds: await heldFunds(db, walletId) };
  for (const balance of balances) {
    if (balance.expiresAt && balance.expiresAt <= now) {
      add(summary.expiredFunds, balance.assets);
      continue;
    }
    add(summary.availableFunds, balance.assets);
    if (balance.expiresAt) add(summary.expirableFunds, balance.assets);
  }
  return summary;
}
