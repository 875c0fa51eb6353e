import { ApiError, isApiError } from '../../../lib/errors';
import { createTransaction, pipelineWrite } from './create-transaction';
import { inWriteTransaction } from '../executor';
import { assertLedgerWritable, ensureLedger } from '../ledgers';
import { assertContracts, contractsOf } from '../rules/mapping';
import { revertTransaction } from './revert-transaction';
import { addAccountMetadata, addTransactionMetadata } from './single-metadata';
import type { CreateTransactionInput, Executor, LedgerTransaction } from '../types';
import { commitWrites, type LedgerWrite } from './write-pipeline';
import { asOneUnit } from './write-units';

/**
 * Formance v1's writes: the same use cases as v2 (same checks, logs and events), plus two v1 behaviours. A v1 write
 * creates its ledger when it is missing (Formance v1's auto-create; v1 reads of a missing ledger stay 404). And a
 * ledger with a mapping checks it: a ledger without one (the common case) goes straight to the v2 use case; one with
 * contracts runs the write and the check in one database transaction, so a write that breaks a contract leaves
 * nothing (no txid, no log, no event).
 */
async function checked<T>(
  db: Executor,
  ledger: string,
  write: (executor: Executor) => Promise<T>,
  touched: (result: T) => LedgerTransaction | undefined,
): Promise<T> {
  await ensureLedger(db, ledger);
  const contracts = await contractsOf(db, ledger);
  if (contracts.length === 0) return write(db);
  return inWriteTransaction(db, async (trx) => {
    const result = await write(trx);
    const tx = touched(result);
    if (tx) await assertContracts(trx, ledger, contracts, tx.postCommitVolumes);
    return result;
  });
}

/** v1 create (and v1 script): createTransaction, checked against the mapping (a replayed Idempotency-Key is not re-checked). */
export function createTransactionV1(
  db: Executor,
  ledger: string,
  input: CreateTransactionInput,
  options: { dryRun?: boolean; idempotencyKey?: string } = {},
): Promise<{ transaction: LedgerTransaction; idempotencyHit: boolean }> {
  return checked(
    db,
    ledger,
    (executor) => createTransaction(executor, ledger, input, options),
    (r) => (r.idempotencyHit ? undefined : r.transaction),
  );
}

/** v1 revert; `disableChecks` is v2's `force` and also skips the mapping. */
export async function revertTransactionV1(
  db: Executor,
  ledger: string,
  id: bigint,
  options: { disableChecks?: boolean } = {},
): Promise<LedgerTransaction> {
  const revert = (executor: Executor) => revertTransaction(executor, ledger, id, { force: options.disableChecks === true });
  if (!options.disableChecks) return checked(db, ledger, revert, (tx) => tx);
  await ensureLedger(db, ledger);
  return revert(db);
}

/** v1 account metadata: creates the ledger when missing. @throws ApiError VALIDATION */
export async function addAccountMetadataV1(db: Executor, ledger: string, address: string, metadata: Record<string, string>): Promise<void> {
  await ensureLedger(db, ledger);
  await addAccountMetadata(db, ledger, address, metadata);
}

/** v1 transaction metadata: creates the ledger when missing (then the transaction is a 404). @throws ApiError NOT_FOUND, VALIDATION */
export async function addTransactionMetadataV1(db: Executor, ledger: string, id: bigint, metadata: Record<string, string>): Promise<void> {
  await ensureLedger(db, ledger);
  await addTransactionMetadata(db, ledger, id, metadata);
}

/**
 * v1's batch: every transaction in order, all or nothing, as one batch of the write pipeline (one statement per table
 * for the whole batch, its rows locked in the writers' one order) in one database transaction, each checked against
 * the mapping with its post-commit volumes. The first failure rolls back the whole batch and is answered with its own
 * code and status, the message prefixed with the transaction's index and `details.index` set.
 * @throws ApiError as createTransaction, INSUFFICIENT_FUND for a broken contract
 */
export async function createTransactionsV1(db: Executor, ledger: string, inputs: CreateTransactionInput[]): Promise<LedgerTransaction[]> {
  await ensureLedger(db, ledger);
  await assertLedgerWritable(db, ledger);
  const indexed = (index: number, error: unknown): never => {
    if (!isApiError(error) || error.status >= 500) throw error;
    throw new ApiError(error.code, `transactions[${index}]: ${error.message}`, { status: error.status, details: { index }, cause: error });
  };
  // Transactions up to the first invalid one are committed first, so a failure before it is the one answered, as when
  // they ran one after the other.
  const writes: LedgerWrite[] = [];
  let invalid: { index: number; error: unknown } | undefined;
  for (const [index, input] of inputs.entries()) {
    try {
      writes.push(pipelineWrite(input, {}));
    } catch (error) {
      invalid = { index, error };
      break;
    }
  }
  return inWriteTransaction(db, async (trx) => {
    const contracts = await contractsOf(trx, ledger);
    const outcomes = writes.length > 0 ? await commitWrites(trx, ledger, writes, { units: asOneUnit(writes, { stopAtFirstRefusal: true }) }) : [];
    const created: LedgerTransaction[] = [];
    for (const [index, outcome] of outcomes.entries()) {
      if ('error' in outcome) indexed(index, outcome.error);
      if (!('transaction' in outcome)) throw new Error('a v1 batch takes no Idempotency-Key');
      try {
        await assertContracts(trx, ledger, contracts, outcome.transaction.postCommitVolumes);
      } catch (error) {
        indexed(index, error);
      }
      created.push(outcome.transaction);
    }
    if (invalid) indexed(invalid.index, invalid.error);
    return created;
  });
}
