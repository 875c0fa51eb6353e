import { ApiError, notFound } from '../../../lib/errors';
import type { PlatformEvent } from '../../../db/outbox';
import { v2TransactionView } from '../reads/views';
import type { LedgerTransaction, Posting } from '../types';

/**
 * A revert as a write of the pipeline (LedgerWrite.revert): its original is locked and read with the batch's first
 * lock (the transactions, by id, before the volume rows), its postings are the original's reversed (source and
 * destination swapped, order reversed), and the original is marked reverted in the batch's last statement, the
 * REVERTED_TRANSACTION event with it. The revert's own request carries its metadata (the link to the original included).
 */
export interface RevertInput {
  id: bigint;
  /** The revert takes the original's timestamp (Formance's `atEffectiveDate`). */
  atEffectiveDate?: boolean;
  /** A log import's replay: the revert's own timestamp. */
  timestamp?: Date;
  /** Runs on the original before the revert is accepted (its accounts checked against a schema's chart). */
  check?: (original: LedgerTransaction) => void;
}

/** A transaction the batch locked by id, as the batch's earlier writes left it. */
export interface LockedTransaction {
  transaction: LedgerTransaction;
  reverted: boolean;
}

/**
 * The revert's postings and timestamp, from its original under the batch's lock (the pipeline marks it reverted once
 * the revert is accepted, so a later revert of it in the batch is ALREADY_REVERT).
 * @throws ApiError NOT_FOUND, ALREADY_REVERT, the check's errors
 */
export function planRevert(ledger: string, revert: RevertInput, original: LockedTransaction | undefined): { postings: Posting[]; timestamp?: Date } {
  if (!original) throw notFound(`transaction ${revert.id} not found in ledger "${ledger}"`);
  if (original.reverted) throw new ApiError('ALREADY_REVERT', `transaction ${revert.id} of ledger "${ledger}" is already reverted`);
  const { transaction } = original;
  revert.check?.(transaction);
  const postings = transaction.postings.map((p) => ({ source: p.destination, destination: p.source, amount: p.amount, asset: p.asset })).reverse();
  const timestamp = revert.timestamp ?? (revert.atEffectiveDate ? transaction.timestamp : undefined);
  return { postings, ...(timestamp ? { timestamp } : {}) };
}

/** The REVERTED_TRANSACTION event: the original as the revert marked it, and the revert. */
export const revertedEvent = (ledger: string, reverted: LedgerTransaction, revert: LedgerTransaction): PlatformEvent => ({
  app: 'ledger',
  type: 'REVERTED_TRANSACTION',
  payload: { ledger, revertedTransaction: v2TransactionView(reverted), revertTransaction: v2TransactionView(revert) },
});
