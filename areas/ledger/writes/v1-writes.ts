import { ApiError, isApiError } from '../../../lib/errors';
import { addAccountMetadata } from '../reads/accounts';
import { lockAhead } from './bulk';
import { createTransaction } from './create-transaction';
import { inWriteTransaction } from '../executor';
import { ensureLedger } from '../ledgers';
import { assertContracts, contractsOf } from '../rules/mapping';
import { revertTransaction } from './revert-transaction';
import { addTransactionMetadata } from '../reads/transactions';
import type { CreateTransactionInput, Executor, LedgerTransaction } from '../types';

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
 * v1's batch: every transaction in order, all or nothing, in one database transaction. The first failure rolls back
 * the whole batch and is answered with its own code and status, the message prefixed with the transaction's index
 * and `details.index` set.
 * @throws ApiError as createTransaction, INSUFFICIENT_FUND for a broken contract
 */
export async function createTransactionsV1(db: Executor, ledger: string, inputs: CreateTransactionInput[]): Promise<LedgerTransaction[]> {
  await ensureLedger(db, ledger);
  return inWriteTransaction(db, async (trx) => {
    // All the batch's rows locked first, in the writers' order, as an atomic bulk does: locked transaction by
    // transaction, two batches sharing accounts in other orders deadlocked.
    await lockAhead(
      trx,
      ledger,
      inputs.map((data) => ({ action: 'CREATE_TRANSACTION' as const, data })),
    );
    const contracts = await contractsOf(trx, ledger);
    const created: LedgerTransaction[] = [];
    for (const [index, input] of inputs.entries()) {
      try {
        const { transaction } = await createTransaction(trx, ledger, input);
        await assertContracts(trx, ledger, contracts, transaction.postCommitVolumes);
        created.push(transaction);
      } catch (error) {
        if (!isApiError(error) || error.status >= 500) throw error;
        throw new ApiError(error.code, `transactions[${index}]: ${error.message}`, { status: error.status, details: { index }, cause: error });
      }
    }
    return created;
  });
}
