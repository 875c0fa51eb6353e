import type { Knex } from 'knex';
import { ApiError, validationError } from '../../lib/errors';
import { withIdempotencyKey } from '../../db/idempotency';
import { emitEvents } from '../../db/outbox';
import { commitTransaction } from './commit';
import { inWriteTransaction } from './executor';
import { assertLedgerExists } from './ledgers';
import { assertMetadata, assertPostings } from './rules';
import { getTransaction } from './transactions';
import { groupCommit, groupCommitEnabled } from './group-commit';
import type { CreateTransactionInput, Executor, LedgerTransaction } from './types';
import { v2TransactionView } from './views';

/** Thrown inside a savepoint to undo a dry run after it computed its result. */
class DryRunRollback extends Error {
  constructor(readonly transaction: LedgerTransaction) {
    super('dry run');
  }
}

/** The request as it is hashed for Idempotency-Key: only what the caller sent (no defaulted timestamp). */
function normalize(input: CreateTransactionInput): CreateTransactionInput {
  if (input.postings !== undefined && input.script !== undefined) throw validationError('send either `postings` or `script`, not both');
  if (input.script === undefined && (input.postings === undefined || input.postings.length === 0)) {
    throw new ApiError('NO_POSTINGS', 'the transaction has no postings: send `postings` or a `script`');
  }
  if (input.postings) assertPostings(input.postings);
  if (input.script && (typeof input.script.plain !== 'string' || input.script.plain.trim() === '')) throw validationError('script.plain: must be a non-empty string');
  if (input.metadata !== undefined) assertMetadata(input.metadata, 'metadata');
  if (input.timestamp !== undefined && Number.isNaN(input.timestamp.getTime())) throw validationError('timestamp: invalid date');
  return {
    ...(input.postings ? { postings: input.postings } : {}),
    ...(input.script ? { script: { plain: input.script.plain, vars: input.script.vars ?? {} } } : {}),
    ...(input.reference ? { reference: input.reference } : {}),
    metadata: input.metadata ?? {},
    ...(input.timestamp ? { timestamp: input.timestamp } : {}),
  };
}

/**
 * Creates a transaction from postings or a Numscript script, atomically with its COMMITTED_TRANSACTIONS event.
 * With `idempotencyKey`, the same request again returns the original transaction (`idempotencyHit: true`) and a
 * different request under that key is a CONFLICT; concurrent duplicates queue on the key, so exactly one commits.
 * `dryRun` runs the whole write (funds checks included) and rolls it back: no txid is consumed, no event is sent.
 * Given the pool (not a caller's transaction), the write joins this process's group commit for the ledger.
 * @throws ApiError LEDGER_NOT_FOUND, VALIDATION, INSUFFICIENT_FUND, COMPILATION_FAILED, NO_POSTINGS, CONFLICT, METADATA_OVERRIDE
 */
export async function createTransaction(
  db: Executor,
  ledger: string,
  input: CreateTransactionInput,
  options: { dryRun?: boolean; idempotencyKey?: string } = {},
): Promise<{ transaction: LedgerTransaction; idempotencyHit: boolean }> {
  const request = normalize(input);
  await assertLedgerExists(db, ledger);
  if (options.dryRun) {
    try {
      await inWriteTransaction(db, (trx) =>
        trx.transaction(async (savepoint) => {
          throw new DryRunRollback((await commitTransaction(savepoint, ledger, request)).transaction);
        }),
      );
    } catch (error) {
      if (error instanceof DryRunRollback) return { transaction: error.transaction, idempotencyHit: false };
      throw error;
    }
  }
  if (groupCommitEnabled() && !(db as Knex.Transaction).isTransaction) {
    const outcome = await groupCommit(db as Knex, ledger, { request, idempotencyKey: options.idempotencyKey });
    if ('error' in outcome) throw outcome.error;
    if ('hitTxid' in outcome) return { transaction: await getTransaction(db, ledger, outcome.hitTxid), idempotencyHit: true };
    return outcome;
  }
  return inWriteTransaction(db, async (trx) => {
    let created: LedgerTransaction | undefined;
    const claim = await withIdempotencyKey(trx, { scope: `ledger/${ledger}/transactions`, key: options.idempotencyKey, request }, async () => {
      const { transaction, accountMetadata } = await commitTransaction(trx, ledger, request);
      await emitEvents(trx, [
        { app: 'ledger', type: 'COMMITTED_TRANSACTIONS', payload: { ledger, transactions: [v2TransactionView(transaction)], accountMetadata } },
      ]);
      created = transaction;
      return { id: transaction.id.toString() };
    });
    if (created) return { transaction: created, idempotencyHit: false };
    return { transaction: await getTransaction(trx, ledger, BigInt(claim.value.id)), idempotencyHit: true };
  });
}
