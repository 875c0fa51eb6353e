import type { Knex } from 'knex';
import { keysetPage, type Page, type PageRequest } from '../../db/pagination';
import { validationError } from '../../lib/errors';
import { hashesLogs } from './features';
import { assertLedgerExists } from './ledgers';
import { ChainVerifier } from './log-chain';
import { compileLedgerQuery, type FieldResolver, type QueryField } from './ledger-query';
import { presentLog, type LedgerLog, type LogRow, type LogType } from './log';
import type { Executor } from './types';

export interface LogFilters {
  /** Inclusive lower bound on the log date. */
  startTime?: Date;
  /** Exclusive upper bound. */
  endTime?: Date;
  /** Only ids below this one (v1's `after`: the list is newest first). */
  before?: bigint;
  /** Types left out (v1 lists no DELETE_METADATA: it has no such log type). */
  excludeTypes?: LogType[];
  /** Formance's JSON filter over `id`, `date`, `type`. */
  query?: string;
}

const LOG_FIELDS: Record<string, QueryField> = {
  id: { kind: 'number', sql: 'ledger_logs.id' },
  date: { kind: 'date', sql: 'ledger_logs.date' },
  type: { kind: 'string', sql: 'ledger_logs.type' },
};
const logField: FieldResolver = (name) => LOG_FIELDS[name];

const COLUMNS = ['id', 'type', 'date', 'data', 'hash'];

/** Newest first (id desc), as Formance. @throws ApiError LEDGER_NOT_FOUND */
export async function listLogs(db: Executor, ledger: string, filters: LogFilters, page: PageRequest): Promise<Page<LedgerLog>> {
  const condition = compileLedgerQuery(filters.query, logField, 'id, date, type');
  await assertLedgerExists(db, ledger);
  const query = db('ledger_logs').where({ ledger }).select(COLUMNS);
  if (filters.startTime) query.where('date', '>=', filters.startTime);
  if (filters.endTime) query.where('date', '<', filters.endTime);
  if (filters.before !== undefined) query.where('id', '<', filters.before.toString());
  if (filters.excludeTypes?.length) query.whereNotIn('type', filters.excludeTypes);
  if (condition) query.whereRaw(condition.sql, condition.bindings as Knex.RawBinding[]);
  const result = await keysetPage<LogRow>(query as Knex.QueryBuilder, ['id'], 'desc', page);
  return { ...result, items: result.items.map(presentLog) };
}

export interface LogChainStatus {
  /** Logs written so far (ids 0..logs-1). */
  logs: bigint;
  /** The last log with its hash, -1 when none. */
  lastHashedLogId: bigint;
  lastHash?: string;
  /** Logs committed or in flight that have no hash yet (0 when the ledger does not hash its logs). */
  lag: bigint;
  /** HASH_LOGS of the ledger: ASYNC (hashed behind the commit) or DISABLED (no chain). */
  hashing: 'ASYNC' | 'DISABLED';
}

/** Where the hasher stands. @throws ApiError LEDGER_NOT_FOUND */
export async function logChainStatus(db: Executor, ledger: string): Promise<LogChainStatus> {
  await assertLedgerExists(db, ledger);
  const row = await db('ledgers')
    .leftJoin('ledger_log_chain', 'ledger_log_chain.ledger', 'ledgers.name')
    .where('ledgers.name', ledger)
    .first('ledgers.next_log_id', 'ledgers.features', 'ledger_log_chain.hashed_through', 'ledger_log_chain.last_hash');
  const logs = BigInt(row.next_log_id);
  const lastHashedLogId = row.hashed_through === null ? -1n : BigInt(row.hashed_through);
  const hashing = hashesLogs(row.features) ? 'ASYNC' : 'DISABLED';
  const lag = hashing === 'ASYNC' ? logs - 1n - lastHashedLogId : 0n;
  return { logs, lastHashedLogId, ...(row.last_hash ? { lastHash: (row.last_hash as Buffer).toString('base64') } : {}), lag, hashing };
}

/**
 * Every log in id order, a page at a time. An export stops before a gap (`stopAtGap`); a verification reads on, so a
 * deleted log shows as a gap (a gap before committed logs cannot be a write in flight: ids are handed out under the
 * ledger row lock, which the write holds until it commits).
 */
export async function* streamLogs(db: Executor, ledger: string, options: { stopAtGap?: boolean; pageSize?: number } = {}): AsyncGenerator<LedgerLog> {
  const pageSize = options.pageSize ?? 1000;
  await assertLedgerExists(db, ledger);
  let after = -1n;
  for (;;) {
    const rows = (await db('ledger_logs').where({ ledger }).where('id', '>', after.toString()).orderBy('id').limit(pageSize).select(COLUMNS)) as LogRow[];
    for (const row of rows) {
      if (options.stopAtGap && BigInt(row.id) !== after + 1n) return;
      after = BigInt(row.id);
      yield presentLog(row);
    }
    if (rows.length < pageSize) return;
  }
}

export interface LogVerification {
  valid: boolean;
  /** Logs read, and how many of them carry a verified hash (the rest wait for the hasher). */
  logs: number;
  hashed: number;
  firstBroken?: { id: bigint; reason: string };
}

/** Recomputes the whole chain from the stored logs. @throws ApiError LEDGER_NOT_FOUND */
export async function verifyLogChain(db: Executor, ledger: string): Promise<LogVerification> {
  // Logs committed before this read must all be found: a shorter stream lost its tail.
  const { logs: committed, hashing } = await logChainStatus(db, ledger);
  if (hashing === 'DISABLED') throw validationError(`ledger "${ledger}" was created with HASH_LOGS DISABLED: its logs have no chain to verify`);
  const verifier = new ChainVerifier();
  for await (const log of streamLogs(db, ledger)) {
    const problem = verifier.next(log);
    if (problem) return { valid: false, logs: verifier.logs, hashed: verifier.hashed, firstBroken: { id: log.id, reason: problem } };
  }
  if (BigInt(verifier.logs) < committed) {
    const id = BigInt(verifier.logs);
    return { valid: false, logs: verifier.logs, hashed: verifier.hashed, firstBroken: { id, reason: `log ${id}: missing (the ledger has written ${committed} logs)` } };
  }
  return { valid: true, logs: verifier.logs, hashed: verifier.hashed };
}
