import { ApiError, validationError } from '../../lib/errors';
import { emitEvents } from '../../db/outbox';
import { inWriteTransaction } from './executor';
import { assertLedgerWritable } from './ledgers';
import { appendLog } from './log';
import { assertAddress } from './rules';
import type { Executor } from './types';

function assertKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > 1000) throw validationError('key: a metadata key of 1 to 1000 characters');
}

/**
 * Removes one key from an account's metadata, with a DELETE_METADATA log and a DELETED_METADATA event. Deleting is
 * idempotent, as accounts exist implicitly: an absent key or an unused address is a no-op (no log, no event).
 * @throws ApiError LEDGER_NOT_FOUND, VALIDATION
 */
export async function deleteAccountMetadata(db: Executor, ledger: string, address: string, key: string): Promise<bigint | undefined> {
  assertAddress(address, 'address');
  assertKey(key);
  await assertLedgerWritable(db, ledger);
  return inWriteTransaction(db, async (trx) => {
    const logId = await removeAccountMetadata(trx, ledger, address, key);
    if (logId === undefined) return undefined;
    await emitEvents(trx, [{ app: 'ledger', type: 'DELETED_METADATA', payload: { ledger, targetType: 'ACCOUNT', targetId: address, key } }]);
    return logId;
  });
}

/** The change and its log in the caller's transaction (also a log import's replay). @returns the log's id, undefined when the key was not there */
export async function removeAccountMetadata(
  trx: Executor,
  ledger: string,
  address: string,
  key: string,
  logDate?: Date,
): Promise<bigint | undefined> {
  const updated = await trx('ledger_accounts')
    .where({ ledger, address })
    .whereRaw('metadata \\? ?', [key])
    .update({ metadata: trx.raw('metadata - ?::text', [key]) });
  if (updated === 0) return undefined;
  return appendLog(trx, ledger, 'DELETE_METADATA', { targetType: 'ACCOUNT', targetId: address, key }, logDate);
}

/**
 * Removes one key from a transaction's metadata, with a DELETE_METADATA log and a DELETED_METADATA event; an absent
 * key is a no-op. @throws ApiError LEDGER_NOT_FOUND, NOT_FOUND (transaction), VALIDATION
 */
export async function deleteTransactionMetadata(db: Executor, ledger: string, id: bigint, key: string): Promise<bigint | undefined> {
  assertKey(key);
  await assertLedgerWritable(db, ledger);
  return inWriteTransaction(db, async (trx) => {
    const logId = await removeTransactionMetadata(trx, ledger, id, key);
    if (logId === undefined) return undefined;
    await emitEvents(trx, [{ app: 'ledger', type: 'DELETED_METADATA', payload: { ledger, targetType: 'TRANSACTION', targetId: id, key } }]);
    return logId;
  });
}

/** @returns the log's id, undefined when the key was not there @throws ApiError NOT_FOUND */
export async function removeTransactionMetadata(trx: Executor, ledger: string, id: bigint, key: string, logDate?: Date): Promise<bigint | undefined> {
  const row = await trx('ledger_transactions')
    .where({ ledger, id: id.toString() })
    .forUpdate()
    .first('id', trx.raw('metadata \\? ? AS has', [key]));
  if (!row) throw new ApiError('NOT_FOUND', `transaction ${id} not found in ledger "${ledger}"`);
  if (!row.has) return undefined;
  await trx('ledger_transactions')
    .where({ ledger, id: id.toString() })
    .update({ metadata: trx.raw('metadata - ?::text', [key]), updated_at: trx.fn.now() });
  return appendLog(trx, ledger, 'DELETE_METADATA', { targetType: 'TRANSACTION', targetId: id, key }, logDate);
}
