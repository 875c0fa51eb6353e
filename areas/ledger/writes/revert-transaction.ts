import type { Knex } from 'knex';
import { inWriteTransaction } from '../executor';
import { assertLedgerWritable } from '../ledgers';
import { assertMetadata } from '../rules/rules';
import { assertPostingsInChart } from '../rules/schema-check';
import { findSchema, type ParsedSchema } from '../rules/schemas';
import type { Executor, LedgerTransaction } from '../types';
import { commitWrite, type LedgerWrite } from './write-pipeline';
import { submit } from './create-transaction';

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

/**
 * The revert as a write of the pipeline (revert-write.ts): the body's metadata plus the link to the original, checked
 * against the schema's chart when one is given (the original's accounts, which the revert moves back).
 * @throws ApiError VALIDATION (metadata)
 */
export function revertWrite(
  id: bigint,
  options: { force?: boolean; atEffectiveDate?: boolean; metadata?: Record<string, string>; schema?: ParsedSchema },
): LedgerWrite {
  if (options.metadata !== undefined) assertMetadata(options.metadata, 'metadata');
  const { schema } = options;
  return {
    request: { metadata: { ...options.metadata, [REVERTS_METADATA_KEY]: id.toString() } },
    revert: {
      id,
      ...(options.atEffectiveDate ? { atEffectiveDate: true } : {}),
      ...(schema ? { check: (original) => assertPostingsInChart(schema, original.postings, `transaction ${id}.postings`) } : {}),
    },
    ...(options.force ? { force: true } : {}),
  };
}

/** revertTransaction, with the id of the log the revert appended (none for a dry run). */
export async function revertWithLog(
  db: Executor,
  ledger: string,
  id: bigint,
  options: RevertOptions = {},
): Promise<{ revert: LedgerTransaction; logId?: bigint }> {
  if (options.metadata !== undefined) assertMetadata(options.metadata, 'metadata');
  const schema = options.schemaVersion !== undefined ? await findSchema(db, ledger, options.schemaVersion) : undefined;
  await assertLedgerWritable(db, ledger);
  const write = revertWrite(id, { ...options, schema });
  if (options.dryRun) {
    const rollback = new Error('dry run');
    let computed: LedgerTransaction | undefined;
    await inWriteTransaction(db, (trx) =>
      trx.transaction(async (savepoint) => {
        computed = (await commitReverted(savepoint, ledger, { ...write, emit: false })).revert;
        throw rollback;
      }),
    ).catch((error: unknown) => {
      if (error !== rollback) throw error;
    });
    return { revert: computed! };
  }
  // Given the pool, the revert joins the ledger's group commit: two reverts of one original in one batch are one
  // revert and one ALREADY_REVERT, as the batch marks the original once the first is accepted.
  const outcome = await submit(db, ledger, write);
  if (!('transaction' in outcome)) throw new Error('a revert takes no Idempotency-Key');
  return { revert: outcome.transaction, logId: outcome.logId };
}

/**
 * A log import's revert as a write of the pipeline: forced, with the log's metadata, timestamp and date, and no event.
 * Committed with the import's batch, it is NOT_FOUND or ALREADY_REVERT as any revert.
 */
export function importedRevertWrite(id: bigint, revert: { metadata: Record<string, string>; timestamp: Date; logDate: Date }): LedgerWrite {
  return {
    request: { metadata: revert.metadata },
    revert: { id, timestamp: revert.timestamp },
    force: true,
    logDate: revert.logDate,
    emit: false,
  };
}

async function commitReverted(
  trx: Knex.Transaction,
  ledger: string,
  write: LedgerWrite,
): Promise<{ reverted: LedgerTransaction; revert: LedgerTransaction; logId: bigint }> {
  const committed = await commitWrite(trx, ledger, write);
  if (!('transaction' in committed) || !committed.reverted) throw new Error('a revert takes no Idempotency-Key');
  return { reverted: committed.reverted, revert: committed.transaction, logId: committed.logId };
}
