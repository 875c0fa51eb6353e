import type { LedgerAccount } from './accounts';
import type { LedgerLog } from '../logs/log';
import type { Volumes } from '../types';

/**
 * Formance v1's JSON shapes of the ledger's rows (the transaction's is v1TransactionView in views.ts). Same model as
 * v2, other names: `txid` for `id`, balances beside the volumes.
 */
const balancesOf = (volumes: Volumes): Record<string, bigint> => Object.fromEntries(Object.entries(volumes).map(([asset, v]) => [asset, v.balance]));

/** v1's Account of a list: address and metadata. */
export const v1AccountView = (account: LedgerAccount) => ({ address: account.address, metadata: account.metadata });

/** v1's AccountWithVolumesAndBalances (get account). */
export const v1AccountWithVolumesView = (account: LedgerAccount) => ({
  address: account.address,
  metadata: account.metadata,
  volumes: account.volumes,
  balances: balancesOf(account.volumes),
});

/** One item of v1's balances list: `{address: {asset: balance}}`. */
export const v1BalancesView = (account: LedgerAccount) => ({ [account.address]: balancesOf(account.volumes) });

interface LoggedTransaction {
  id: number | bigint;
  postings: unknown[];
  metadata: Record<string, string>;
  timestamp: string;
  reference?: string;
}

const v1LoggedTransaction = (tx: LoggedTransaction) => ({
  txid: tx.id,
  postings: tx.postings,
  reference: tx.reference ?? '',
  metadata: tx.metadata,
  timestamp: tx.timestamp,
});

/**
 * v1's Log. v1 has two log types: a transaction (NEW_TRANSACTION, its data the v1 transaction without volumes) and
 * SET_METADATA (the same data as v2). A revert was a new transaction in v1, so a REVERTED_TRANSACTION log reads as the
 * NEW_TRANSACTION of the revert; DELETE_METADATA and INSERTED_SCHEMA have no v1 form and the v1 list leaves it out (logV1TypesExcluded).
 * `hash` is the v2 chain's hash, "" until the hasher reaches the log (v1's model requires the field); it chains the v2
 * data, not this view of it.
 */
export function v1LogView(log: LedgerLog) {
  const data = log.data as Record<string, unknown>;
  const base = { id: log.id, date: log.date, hash: log.hash ?? '' };
  if (log.type === 'NEW_TRANSACTION' || log.type === 'REVERTED_TRANSACTION') {
    return { ...base, type: 'NEW_TRANSACTION' as const, data: v1LoggedTransaction(data.transaction as LoggedTransaction) };
  }
  return { ...base, type: log.type, data };
}

export const logV1TypesExcluded = ['DELETE_METADATA', 'INSERTED_SCHEMA'] as const;
