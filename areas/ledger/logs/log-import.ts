import { ApiError, isApiError, validationError } from '../../../lib/errors';
import { parseJson } from '../../../lib/json';
import { translateDbError } from '../../../db/errors';
import type { Db } from '../../../db/knex';
import { LOG_TYPES, type LogType } from './log';
import { ChainVerifier, type ChainLog } from './log-chain';
import { assertLedgerWritable } from '../ledgers';
import { dataMismatch } from './log-data';
import { LogReplayer, type PendingTransaction } from './log-replay';
import { checkCheckpoint, loadLogKeys, parsePublicKey, type Checkpoint, type LogPublicKey } from './log-signing';

const importError = (message: string, logId?: bigint) =>
  new ApiError('IMPORT', message, { status: 400, ...(logId !== undefined ? { details: { logId } } : {}) });

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

type ImportedLog = ChainLog & { type: LogType; data: Record<string, unknown>; checkpoint?: Checkpoint };

/** One line of an export: a V2Log, with its checkpoint when it has one. The line number names a log whose id cannot be read. */
function parseLine(text: string, line: number): ImportedLog {
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (error) {
    throw importError(`line ${line}: malformed JSON (${(error as Error).message})`);
  }
  const where = `line ${line}`;
  if (!isRecord(value)) throw importError(`${where}: a log must be a JSON object`);
  const id = value.id;
  if (!((typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) || (typeof id === 'bigint' && id >= 0n)))
    throw importError(`${where}: id must be an integer from 0`);
  const logId = BigInt(id);
  if (typeof value.type !== 'string' || !(LOG_TYPES as readonly string[]).includes(value.type))
    throw importError(`log ${logId}: type must be one of ${LOG_TYPES.join(', ')}`, logId);
  const date = typeof value.date === 'string' ? new Date(value.date) : undefined;
  if (!date || Number.isNaN(date.getTime())) throw importError(`log ${logId}: date must be an ISO 8601 date-time`, logId);
  if (!isRecord(value.data)) throw importError(`log ${logId}: data must be an object`, logId);
  if (value.hash !== undefined && typeof value.hash !== 'string') throw importError(`log ${logId}: hash must be a string`, logId);
  const checkpoint = value.checkpoint;
  if (checkpoint !== undefined && !(isRecord(checkpoint) && typeof checkpoint.keyId === 'string' && typeof checkpoint.signature === 'string')) {
    throw importError(`log ${logId}: checkpoint must be {keyId, signature}`, logId);
  }
  return {
    id: logId,
    type: value.type as LogType,
    date,
    data: value.data,
    ...(value.hash !== undefined ? { hash: value.hash as string } : {}),
    ...(checkpoint !== undefined ? { checkpoint: { keyId: checkpoint.keyId as string, signature: checkpoint.signature as string } } : {}),
  };
}

export interface ImportOptions {
  /**
   * Ed25519 public keys (raw 32 bytes, base64url) trusted instead of the platform's own: the export comes from another
   * deployment, whose `GET /api/ledger/v2/_/log-signing-keys` gave them.
   */
  publicKeys?: string[];
  /** Aborted when the client goes away: the import rolls back rather than commit for nobody. */
  signal?: AbortSignal;
}

/** The message of an error a log caused, prefixed with the log unless it already names it. */
function named(error: unknown, logId: bigint): unknown {
  const translated = translateDbError(error);
  if (!isApiError(translated) || translated.status >= 500) return error;
  if (translated.code === 'IMPORT') return translated;
  return importError(`log ${logId}: ${translated.message}`, logId);
}

/**
 * Imports an export (newline-delimited V2Logs) into an empty ledger, as the lines arrive, in one database transaction:
 * a log that does not apply, a chain or a signature that does not verify, or a client that goes away rolls everything
 * back. Each log must extend the chain (ids dense from 0, hashes recomputed); each checkpoint it carries must be signed
 * by a trusted key (the platform's, any of them, or `publicKeys`), and the last log must carry one: its signature
 * covers the chain, so it authenticates every log of the export. Every log is then replayed through the ledger's rules
 * (LogReplayer), so the ledger stores exactly the logs given, which the hasher hashes to the same chain.
 * @throws ApiError LEDGER_NOT_FOUND, VALIDATION (a public key), IMPORT (400, `details.logId` naming the first offending log when it has an id)
 */
export async function importLogs(
  db: Db,
  ledger: string,
  lines: AsyncIterable<string> | Iterable<string>,
  options: ImportOptions = {},
): Promise<{ logs: number }> {
  await assertLedgerWritable(db, ledger);
  let foreign: LogPublicKey[] | undefined;
  if (options.publicKeys !== undefined) {
    foreign = options.publicKeys.map((text, i) => {
      const key = parsePublicKey(text);
      if (!key) throw validationError(`query.publicKey[${i}]: must be an Ed25519 public key, its 32 bytes in base64url`);
      return key;
    });
  }
  let keys: LogPublicKey[] = foreign ?? (await loadLogKeys(db, false, false));
  const aborted = () => new ApiError('IMPORT', 'the client went away: nothing was imported', { status: 400 });
  const verifier = new ChainVerifier(true);
  let count = 0;
  try {
    // Not inTransaction: its retries would read the body again, which has gone by.
    await db.transaction(async (trx) => {
      const row = await trx('ledgers').where({ name: ledger }).forUpdate().first('next_txid', 'next_log_id');
      const used = await trx('ledger_accounts').where({ ledger }).first('address');
      if (BigInt(row.next_txid) !== 0n || BigInt(row.next_log_id) !== 0n || used)
        throw importError(`ledger "${ledger}" is not empty: logs are imported into a new ledger only`);
      const replayer = new LogReplayer(trx, ledger);
      // The replayer writes logs in runs, after later logs were read: a log it still holds that fails is the first
      // offender, so it is written (and its failure thrown) before an error found at a later log is.
      const failAt = async (error: unknown, at: bigint): Promise<never> => {
        try {
          await replayer.finish();
        } catch (earlier) {
          throw named(earlier, replayer.failedLog ?? at);
        }
        throw error;
      };
      let line = 0;
      let last: { id: bigint; signed: boolean } | undefined;
      for await (const text of lines) {
        line += 1;
        if (options.signal?.aborted) throw aborted();
        if (text.trim() === '') continue;
        let log: ImportedLog;
        try {
          log = parseLine(text, line);
        } catch (error) {
          return failAt(error, last?.id ?? 0n);
        }
        let prepared: PendingTransaction | undefined;
        try {
          if (log.type === 'NEW_TRANSACTION') prepared = replayer.prepareTransaction(log);
        } catch (error) {
          return failAt(named(error, log.id), log.id);
        }
        // A transaction's chain hash is computed over the data its replay writes: the log's hash verifies only when the
        // log is exactly that data, so one canonical serialization checks both the chain and the log.
        const problem = verifier.next(prepared ? { ...log, data: prepared.view } : log);
        if (problem) {
          const mismatch = prepared && dataMismatch(log.data, prepared.view);
          return failAt(importError(mismatch ? `log ${log.id}: ${mismatch}` : problem, log.id), log.id);
        }
        if (log.checkpoint) {
          if (!foreign && !keys.some((k) => k.keyId === log.checkpoint!.keyId)) keys = await loadLogKeys(db, true, false);
          const bad = checkCheckpoint(keys, log.id, log.hash!, log.checkpoint);
          if (bad) return failAt(importError(bad, log.id), log.id);
        }
        last = { id: log.id, signed: log.checkpoint !== undefined };
        count += 1;
        try {
          await (prepared ? replayer.push(prepared) : replayer.apply(log));
        } catch (error) {
          throw named(error, replayer.failedLog ?? log.id);
        }
      }
      try {
        await replayer.finish();
      } catch (error) {
        throw named(error, replayer.failedLog ?? last!.id);
      }
      if (last && !last.signed) {
        throw importError(
          `log ${last.id}: the export's last log carries no signed checkpoint, so nothing authenticates it (export it again, or give the signer's publicKey)`,
          last.id,
        );
      }
      if (options.signal?.aborted) throw aborted();
    });
  } catch (error) {
    throw translateDbError(error);
  }
  return { logs: count };
}
