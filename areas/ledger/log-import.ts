import { ApiError, isApiError } from '../../lib/errors';
import { parseJson } from '../../lib/json';
import { inTransaction, translateDbError } from '../../db/errors';
import type { Db } from '../../db/knex';
import { LOG_TYPES, type LogType } from './log';
import { ChainVerifier, type ChainLog } from './log-chain';
import { assertLedgerWritable } from './ledgers';
import { replayLog } from './log-replay';

const importError = (message: string, logId?: bigint) => new ApiError('IMPORT', message, { status: 400, ...(logId !== undefined ? { details: { logId } } : {}) });

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** One line of an export: a V2Log. The line number names a log whose id cannot be read. */
function parseLine(text: string, line: number): ChainLog & { type: LogType; data: Record<string, unknown> } {
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (error) {
    throw importError(`line ${line}: malformed JSON (${(error as Error).message})`);
  }
  const where = `line ${line}`;
  if (!isRecord(value)) throw importError(`${where}: a log must be a JSON object`);
  const id = value.id;
  if (!((typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) || (typeof id === 'bigint' && id >= 0n))) throw importError(`${where}: id must be an integer from 0`);
  const logId = BigInt(id);
  if (typeof value.type !== 'string' || !(LOG_TYPES as readonly string[]).includes(value.type)) throw importError(`log ${logId}: type must be one of ${LOG_TYPES.join(', ')}`, logId);
  const date = typeof value.date === 'string' ? new Date(value.date) : undefined;
  if (!date || Number.isNaN(date.getTime())) throw importError(`log ${logId}: date must be an ISO 8601 date-time`, logId);
  if (!isRecord(value.data)) throw importError(`log ${logId}: data must be an object`, logId);
  if (value.hash !== undefined && typeof value.hash !== 'string') throw importError(`log ${logId}: hash must be a string`, logId);
  return { id: logId, type: value.type as LogType, date, data: value.data, ...(value.hash !== undefined ? { hash: value.hash as string } : {}) };
}

/**
 * Imports an export (newline-delimited V2Logs) into an empty ledger. The whole stream is read and its chain verified
 * before anything is written; then every log is replayed through the write path in one database transaction, so a log
 * that does not apply leaves the ledger as it was. The replay writes the same logs (same ids, dates and data), so the
 * hasher gives them the same hashes as in the source ledger.
 * @throws ApiError LEDGER_NOT_FOUND, IMPORT (400, `details.logId` naming the first offending log when it has an id)
 */
export async function importLogs(db: Db, ledger: string, text: string): Promise<{ logs: number }> {
  await assertLedgerWritable(db, ledger);
  const verifier = new ChainVerifier(true);
  const logs = text.split('\n').flatMap((line, index) => (line.trim() === '' ? [] : [parseLine(line, index + 1)]));
  for (const log of logs) {
    const problem = verifier.next(log);
    if (problem) throw importError(problem, log.id);
  }
  await inTransaction(db, async (trx) => {
    const row = await trx('ledgers').where({ name: ledger }).forUpdate().first('next_txid', 'next_log_id');
    const used = await trx('ledger_accounts').where({ ledger }).first('address');
    if (BigInt(row.next_txid) !== 0n || BigInt(row.next_log_id) !== 0n || used) throw importError(`ledger "${ledger}" is not empty: logs are imported into a new ledger only`);
    for (const log of logs) {
      try {
        await replayLog(trx, ledger, log);
      } catch (error) {
        const translated = translateDbError(error);
        if (!isApiError(translated) || translated.status >= 500) throw error;
        throw importError(`log ${log.id}: ${translated.message}`, log.id);
      }
    }
  });
  return { logs: logs.length };
}
