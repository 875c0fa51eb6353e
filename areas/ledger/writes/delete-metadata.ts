import { inWriteTransaction } from '../executor';
import { assertLedgerWritable } from '../ledgers';
import { assertAddress } from '../rules/rules';
import type { Executor } from '../types';
import { assertKey, commitMetadataWrite } from './metadata-write';

/**
 * Removes one key from an account's metadata through the write pipeline, with a DELETE_METADATA log and a
 * DELETED_METADATA event. Deleting is idempotent, as accounts exist implicitly: an absent key or an unused address is
 * a no-op (no log, no event).
 * @returns the log's id, undefined when the key was not there @throws ApiError LEDGER_NOT_FOUND, VALIDATION
 */
export async function deleteAccountMetadata(db: Executor, ledger: string, address: string, key: string): Promise<bigint | undefined> {
  assertAddress(address, 'address');
  assertKey(key);
  await assertLedgerWritable(db, ledger);
  const { logId } = await inWriteTransaction(db, (trx) =>
    commitMetadataWrite(trx, ledger, { target: { type: 'ACCOUNT', id: address }, change: { delete: key } }),
  );
  return logId;
}

/**
 * Removes one key from a transaction's metadata through the write pipeline, with a DELETE_METADATA log and a
 * DELETED_METADATA event; an absent key is a no-op.
 * @returns the log's id, undefined when the key was not there @throws ApiError LEDGER_NOT_FOUND, NOT_FOUND (transaction), VALIDATION
 */
export async function deleteTransactionMetadata(db: Executor, ledger: string, id: bigint, key: string): Promise<bigint | undefined> {
  assertKey(key);
  await assertLedgerWritable(db, ledger);
  const { logId } = await inWriteTransaction(db, (trx) =>
    commitMetadataWrite(trx, ledger, { target: { type: 'TRANSACTION', id }, change: { delete: key } }),
  );
  return logId;
}
