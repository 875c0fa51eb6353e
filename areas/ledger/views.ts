import type { LedgerTransaction } from './types';

/**
 * JSON views of a transaction. v2 is Formance's V2Tx (`id`, reference omitted when unset) and is also the payload of
 * ledger events; v1 is the spec's LedgerTransaction of op 11 (`txid`, exactly its seven fields, `reference` always a
 * string, "" when unset).
 */
export function v2TransactionView(tx: LedgerTransaction) {
  return {
    id: tx.id,
    timestamp: tx.timestamp,
    postings: tx.postings,
    ...(tx.reference !== undefined ? { reference: tx.reference } : {}),
    metadata: tx.metadata,
    insertedAt: tx.insertedAt,
    reverted: tx.reverted,
    ...(tx.revertedAt ? { revertedAt: tx.revertedAt } : {}),
    preCommitVolumes: tx.preCommitVolumes,
    postCommitVolumes: tx.postCommitVolumes,
  };
}

export function v1TransactionView(tx: LedgerTransaction) {
  return {
    txid: tx.id,
    timestamp: tx.timestamp,
    postings: tx.postings,
    reference: tx.reference ?? '',
    metadata: tx.metadata,
    preCommitVolumes: tx.preCommitVolumes,
    postCommitVolumes: tx.postCommitVolumes,
  };
}
