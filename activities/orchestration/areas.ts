/**
 * The one place orchestration's activities reach the other areas (ledger, wallets, payments), in-process, through the
 * contracts in briefs/contracts.md. While an area has not landed on main, its functions are declared here with the
 * contract's signatures and fail with INTERNAL "area not available yet" (a retryable failure: a stage that needs the
 * area waits, visibly in op 14, instead of failing); each block is replaced by the real import when the area merges.
 * Wallets (db/wallets) have not landed yet.
 */
import { ApiError } from '../../lib/errors';
import type { Db, Executor } from '../../db/knex';
import type { ListRequest } from '../../api/pagination';
import type { Page } from '../../db/pagination';

const unavailable = (area: string) => async (): Promise<never> => {
  throw new ApiError('INTERNAL', `${area}: area not available yet`);
};

// ---- ledger: db/ledger/index.ts -----------------------------------------------------------------------------------
export { addAccountMetadata, createTransaction, ensureLedger, getAccount, type Posting } from '../../db/ledger';

// ---- wallets: db/wallets/index.ts ---------------------------------------------------------------------------------
export interface Wallet {
  id: string; name: string; metadata: Record<string, string>; createdAt: Date; ledger: string;
  balances: { main: { assets: Record<string, bigint> }; [name: string]: { assets: Record<string, bigint> } };
}
export type Subject = { type: 'ACCOUNT'; identifier: string; ledger?: string } | { type: 'WALLET'; identifier: string; balance?: string };
export interface WalletDebitResult { id: string; walletID: string; metadata: Record<string, string>; description: string; destination: Subject }
export const getWallet: (db: Executor, id: string) => Promise<Wallet> = unavailable('wallets');
export const listWallets: (db: Executor, filters: { name?: string; metadata?: Record<string, string> }, page: ListRequest) =>
  Promise<Page<Omit<Wallet, 'balances'>>> = unavailable('wallets');
export const creditWallet: (db: Db, id: string, input: { amount: { asset: string; amount: bigint }; sources?: Subject[];
  balance?: string; metadata?: Record<string, string>; reference?: string; timestamp?: Date }, options?: { idempotencyKey?: string }) => Promise<void> = unavailable('wallets');
export const debitWallet: (db: Db, id: string, input: { amount: { asset: string; amount: bigint }; balances?: string[];
  destination?: Subject; metadata?: Record<string, string>; description?: string; pending?: boolean; timestamp?: Date },
  options?: { idempotencyKey?: string }) => Promise<WalletDebitResult | undefined> = unavailable('wallets');
export const confirmHold: (db: Db, holdId: string, input?: { amount?: bigint; final?: boolean }, options?: { idempotencyKey?: string }) => Promise<void> = unavailable('wallets');
export const voidHold: (db: Db, holdId: string, options?: { idempotencyKey?: string }) => Promise<void> = unavailable('wallets');

// ---- payments: db/payments/orchestration.ts -----------------------------------------------------------------------
export { findConnectorByProvider, getPaymentForStage, providerTransfer } from '../../db/payments/orchestration';
