import type { Knex } from 'knex';
import { ApiError, notFound } from '../../../lib/errors';
import { emitEvents } from '../../../db/outbox';
import { inWriteTransaction } from '../executor';
import { assertLedgerWritable } from '../ledgers';
import { revertedLogView } from '../logs/log';
import { assertMetadata } from '../rules/rules';
import { assertPostingsInChart } from '../rules/schema-check';
import { findSchema } from '../rules/schemas';
import { TRANSACTION_ROW_COLUMNS } from '../reads/transaction-json';
import { getTransaction, presentTransaction, type TransactionRow } from '../reads/transactions';
import type { Executor, LedgerTransaction } from '../types';
import { v2TransactionView } from '../reads/views';
import { commitWrite } from './write-pipeline';

/** Formance's link from a revert transaction to the one it reverts. */
const REVERTS_METADATA_KEY = 'com.formance.spec/state/reverts';

/**
 * Reverts a transaction: a new transaction with the postings reversed (source and destination swapped, order
 * reversed), the body's metadata plus the link to the original. The original row is locked first, so two concurrent
 * reverts produce one revert and one ALREADY_REVERT. Without `force`, a revert that would take a non-world account
 * below zero is INSUFFICIENT_FUND. With a schema version, the accounts must be in its chart; a dry run rolls back.
 * @throws ApiError LEDGER_NOT_FOUND, NOT_FOUND, ALREADY_REVERT, INSUFFICIENT_FUND, VALIDATION
 */
export async function revertTransaction(db: Executor, ledger: string, id: bigint, options: RevertOptions = {}): Promise<LedgerTransaction> {
  return (await revertWithLog(db, ledger, id, options)).revert;
}

export interface RevertOptions {
  force?: boolean;
  atEffectiveDate?: boolean;
  metadata?: Record<string, string>;
  schemaVersion?: string;
  dryRun?: boolean;
}

/** revertTransaction, with the id of the log the revert appended (none for a dry run). */
export async function revertWithLog(
  db: Executor,
  ledger: string,
  id: bigint,
  options: RevertOptions = {},
): Promise<{ revert: LedgerTransaction; logId?: bigint }> {
  if (options.metadata !== undefined) assertMetadata(options.metadata, 'metadata');
  if (options.schemaVersion !== undefined) {
    // The revert moves the original's accounts: checking them first is exact, as postings and schema versions never change.
    const schema = await findSchema(db, ledger, options.schemaVersion);
    assertPostingsInChart(schema, (await getTransaction(db, ledger, id)).postings, `transaction ${id}.postings`);
  }
  await assertLedgerWritable(db, ledger);
  const run = async (trx: Knex.Transaction) => {
    return commitRevert(trx, ledger, id, {
      force: options.force,
      metadata: { ...options.metadata, [REVERTS_METADATA_KEY]: id.toString() },
      atEffectiveDate: options.atEffectiveDate,
    });
  };
  if (options.dryRun) {
    const rollback = new Error('dry run');
    let computed: LedgerTransaction | undefined;
    await inWriteTransaction(db, (trx) =>
      trx.transaction(async (savepoint) => {
        computed = (await run(savepoint)).revert;
        throw rollback;
      }),
    ).catch((error: unknown) => {
      if (error !== rollback) throw error;
    });
    return { revert: computed! };
  }
  return inWriteTransaction(db, async (trx) => {
    const { reverted, revert, logId } = await run(trx);
    await emitEvents(trx, [
      {
        app: 'ledger',
        type: 'REVERTED_TRANSACTION',
        payload: { ledger, revertedTransaction: v2TransactionView(reverted), revertTransaction: v2TransactionView(revert) },
      },
    ]);
    return { revert, logId };
  });
}

/**
 * The revert itself, inside the caller's transaction: locks the original, commits the reversed postings through the
 * write pipeline with the REVERTED_TRANSACTION log (its event is the caller's) and marks the original reverted. A log import replays it with the original's metadata,
 * timestamp and log date. @throws ApiError NOT_FOUND, ALREADY_REVERT, INSUFFICIENT_FUND
 */
export async function commitRevert(
  trx: Knex.Transaction,
  ledger: string,
  id: bigint,
  revert: { force?: boolean; metadata: Record<string, string>; atEffectiveDate?: boolean; timestamp?: Date; logDate?: Date },
): Promise<{ reverted: LedgerTransaction; revert: LedgerTransaction; logId: bigint }> {
  const row = await trx<TransactionRow>('ledger_transactions')
    .where({ ledger, id: id.toString() })
    .forUpdate()
    .first(...TRANSACTION_ROW_COLUMNS);
  if (!row) throw notFound(`transaction ${id} not found in ledger "${ledger}"`);
  if (row.reverted_at !== null) throw new ApiError('ALREADY_REVERT', `transaction ${id} of ledger "${ledger}" is already reverted`);
  const original = presentTransaction(row);
  const postings = original.postings.map((p) => ({ source: p.destination, destination: p.source, amount: p.amount, asset: p.asset })).reverse();
  const timestamp = revert.timestamp ?? (revert.atEffectiveDate ? original.timestamp : undefined);
  const committed = await commitWrite(trx, ledger, {
    request: { postings, metadata: revert.metadata, ...(timestamp ? { timestamp } : {}) },
    force: revert.force,
    reverts: revertedLogView(original),
    ...(revert.logDate ? { logDate: revert.logDate } : {}),
    emit: false,
  });
  if (!('transaction' in committed)) throw new Error('a revert takes no Idempotency-Key');
  const { transaction, logId } = committed;
  const marked = await trx('ledger_transactions')
    .where({ ledger, id: id.toString() })
    .update({ reverted_at: trx.fn.now(), updated_at: trx.fn.now() })
    .returning([...TRANSACTION_ROW_COLUMNS]);
  return { reverted: presentTransaction(marked[0] as TransactionRow), revert: transaction, logId };
}
