import type { Knex } from 'knex';

/** Shared shapes of the ledger's in-process contract (see areas/ledger/index.ts). */
export interface Posting {
  source: string;
  destination: string;
  amount: bigint;
  asset: string;
}

export interface Volume {
  input: bigint;
  output: bigint;
  balance: bigint;
}
export type Volumes = Record<string, Volume>;
export type VolumesByAccount = Record<string, Volumes>;

export interface LedgerTransaction {
  /** txid: per ledger, dense, from 0. */
  id: bigint;
  ledger: string;
  postings: Posting[];
  reference?: string;
  metadata: Record<string, string>;
  timestamp: Date;
  insertedAt: Date;
  reverted: boolean;
  revertedAt?: Date;
  /** Only the accounts and assets the transaction touched. */
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

export type Executor = Knex | Knex.Transaction;

export const WORLD = 'world';
