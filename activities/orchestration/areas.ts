/**
 * The one place orchestration's activities reach the other areas (ledger, wallets, payments), in-process, through the
 * contracts in briefs/contracts.md. While an area has not landed on main, its functions are declared here with the
 * contract's signatures and fail with INTERNAL "area not available yet" (a retryable failure: a stage that needs the
 * area waits, visibly in op 14, instead of failing); each block is replaced by the real import when the area merges.
 */
import type { Client } from '@temporalio/client';
import { ApiError } from '../../lib/errors';
import type { Db, Executor } from '../../db/knex';
import type { ListRequest } from '../../api/pagination';
import type { Page } from '../../db/pagination';
import * as ledgerArea from '../../db/ledger';

const unavailable = (area: string) => async (): Promise<never> => {
  throw new ApiError('INTERNAL', `${area}: area not available yet`);
};

// ---- ledger: db/ledger/index.ts -----------------------------------------------------------------------------------
export interface Posting { source: string; destination: string; amount: bigint; asset: string }
export interface Volume { input: bigint; output: bigint; balance: bigint }
export type Volumes = Record<string, Volume>;
export type VolumesByAccount = Record<string, Volumes>;
export interface LedgerTransaction {
  id: bigint;
  ledger: string;
  postings: Posting[];
  reference?: string;
  metadata: Record<string, string>;
  timestamp: Date;
  reverted: boolean;
  preCommitVolumes: VolumesByAccount;
  postCommitVolumes: VolumesByAccount;
}
export interface CreateTransactionInput {
  postings?: Posting[];
  script?: { plain: string; vars?: Record<string, unknown> };
  reference?: string;
  metadata?: Record<string, string>;
  timestamp?: Date;
}
export const createTransaction: (db: Executor, ledger: string, input: CreateTransactionInput,
  options?: { dryRun?: boolean; idempotencyKey?: string }) => Promise<{ transaction: LedgerTransaction; idempotencyHit: boolean }> = ledgerArea.createTransaction;
export const getAccount: (db: Executor, ledger: string, address: string) =>
  Promise<{ address: string; metadata: Record<string, string>; volumes: Volumes; effectiveVolumes: Volumes }> = ledgerArea.getAccount;
export const addAccountMetadata: (db: Executor, ledger: string, address: string, metadata: Record<string, string>) => Promise<void> = ledgerArea.addAccountMetadata;
export const ensureLedger: (db: Executor, name: string) => Promise<void> = ledgerArea.ensureLedger;

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
/** The spec's Payment without `amount`, string metadata, adjustments as { status, amount, date, raw, absolute }. */
export type StagePayment = Record<string, unknown> & { id: string; initialAmount: bigint; asset: string };
export const providerTransfer: (deps: { db: Db; temporal: { client: Client; taskQueue: string } },
  input: { connectorID: string; amount: bigint; asset: string; destination: string; waitingValidation: boolean; metadata: Record<string, string> },
  idempotencyKey: string) => Promise<{ paymentInitiationID: string }> = unavailable('payments');
export const getPaymentForStage: (db: Executor, id: string) => Promise<StagePayment> = unavailable('payments');
export const findConnectorByProvider: (db: Executor, provider: string) => Promise<{ connectorID: string } | undefined> = unavailable('payments');
