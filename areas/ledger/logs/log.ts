import { createHash } from 'node:crypto';
import { canonicalJson, stringifyJson } from '../../../lib/json';
import type { Executor, LedgerTransaction, Posting } from '../types';

/** Formance's V2Log types, all of which this ledger writes. */
export const LOG_TYPES = ['NEW_TRANSACTION', 'SET_METADATA', 'REVERTED_TRANSACTION', 'DELETE_METADATA', 'INSERTED_SCHEMA'] as const;
export type LogType = (typeof LOG_TYPES)[number];

/** Formance's V2Log; `hash` is absent until the hasher has reached the log. */
export interface LedgerLog {
  id: bigint;
  type: LogType;
  data: Record<string, unknown>;
  date: Date;
  hash?: string;
}

export interface LogRow {
  id: string;
  type: LogType;
  data: Record<string, unknown>;
  date: Date;
  hash: Buffer | null;
}

export const presentLog = (row: LogRow): LedgerLog => ({
  id: BigInt(row.id),
  type: row.type,
  data: row.data,
  date: row.date,
  ...(row.hash ? { hash: row.hash.toString('base64') } : {}),
});

/**
 * A transaction as logs carry it (Formance's V2LogTransaction): what a replay needs to rebuild it, without the
 * volumes (recomputed by the replay) or the insertion date (the replay's own).
 */
export function logTransactionView(tx: {
  id?: bigint;
  postings: Posting[];
  metadata: Record<string, string>;
  timestamp: Date;
  reference?: string;
  reverted?: boolean;
}) {
  return {
    ...(tx.id !== undefined ? { id: tx.id } : {}),
    postings: tx.postings.map((p) => ({ source: p.source, destination: p.destination, amount: p.amount, asset: p.asset })),
    metadata: tx.metadata,
    timestamp: tx.timestamp,
    ...(tx.reference !== undefined ? { reference: tx.reference } : {}),
    reverted: tx.reverted ?? false,
  };
}

export const revertedLogView = (tx: LedgerTransaction) => logTransactionView({ ...tx, reverted: true });

/**
 * Appends a log inside the change's transaction. The id is taken from the ledger row in the same statement as the
 * insert, so the row lock is taken once, last, and held only to the commit; a rollback gives the number back.
 * @returns the log id, or undefined when the ledger does not exist
 */
export async function appendLog(trx: Executor, ledger: string, type: LogType, data: unknown, date: Date = new Date()): Promise<bigint | undefined> {
  const result = await trx.raw(
    `WITH n AS (UPDATE ledgers SET next_log_id = next_log_id + 1 WHERE name = ? RETURNING next_log_id - 1 AS id)
     INSERT INTO ledger_logs (ledger, id, type, date, data) SELECT ?, n.id, ?, ?, ?::jsonb FROM n RETURNING id`,
    [ledger, ledger, type, date, stringifyJson(data)],
  );
  const row = result.rows[0] as { id: string } | undefined;
  return row ? BigInt(row.id) : undefined;
}

/**
 * The chain: hash(n) = SHA-256(hash(n-1) || canonicalJson({id, type, date, data})), with no previous hash for log 0.
 * `date` is hashed as ISO 8601 in milliseconds, the precision the column keeps.
 */
export function chainHash(previous: Buffer | null, log: { id: bigint | string | number; type: string; date: Date; data: unknown }): Buffer {
  const hash = createHash('sha256');
  if (previous) hash.update(previous);
  hash.update(canonicalJson({ id: BigInt(log.id), type: log.type, date: log.date, data: log.data }));
  return hash.digest();
}
