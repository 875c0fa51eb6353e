import type { Knex } from 'knex';
import type { PlatformEvent } from '../../../db/outbox';
import { ApiError } from '../../../lib/errors';
import type { LogType } from '../logs/log';
import { writeMetadata, type MetadataChange } from './write-statements';

/**
 * A metadata write (add or delete metadata, a checked write's account metadata, a log import's SET_METADATA and
 * DELETE_METADATA): keys merged into, or one key deleted from, an account's or a transaction's metadata, with its log
 * (SET_METADATA, DELETE_METADATA) and its event (SAVED_METADATA, DELETED_METADATA).
 */
export interface MetadataWrite extends MetadataChange {
  /** A log import's replay: the original log's date. */
  logDate?: Date;
  /** Whether the pipeline emits the write's event (the default); a log import and a checked write's account metadata do not. */
  emit?: boolean;
}

/**
 * Commits one metadata write in the caller's transaction, in one statement (writeMetadata). It takes no txid and
 * touches no volume: what it locks is its target's row, then the ledger row, the order every writer takes them in.
 * Deleting a key that is not there changes nothing: no log, no event.
 * @returns the id of the log it appended, undefined when it changed nothing @throws ApiError NOT_FOUND (transaction)
 */
export async function commitMetadataWrite(trx: Knex.Transaction, ledger: string, write: MetadataWrite): Promise<{ logId?: bigint }> {
  const { target, change } = write;
  const targetType = target.type;
  const targetId = target.id;
  const [logType, logData, event]: [LogType, unknown, PlatformEvent] =
    'set' in change
      ? [
          'SET_METADATA',
          { targetType, targetId, metadata: change.set },
          { app: 'ledger', type: 'SAVED_METADATA', payload: { ledger, targetType, targetId, metadata: change.set } },
        ]
      : [
          'DELETE_METADATA',
          { targetType, targetId, key: change.delete },
          { app: 'ledger', type: 'DELETED_METADATA', payload: { ledger, targetType, targetId, key: change.delete } },
        ];
  const log = { type: logType, date: write.logDate ?? new Date(), data: logData };
  const { logId, found } = await writeMetadata(trx, ledger, write, log, write.emit === false ? [] : [event]);
  if (!found) throw new ApiError('NOT_FOUND', `transaction ${String(targetId)} not found in ledger "${ledger}"`);
  return logId === undefined ? {} : { logId };
}
