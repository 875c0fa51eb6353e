import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Knex } from 'knex';
import { inTransaction } from '../../../db/errors';
import { keysetPage, type Page, type PageRequest } from '../../../db/pagination';
import { validationError } from '../../../lib/errors';
import { hashesLogs } from '../features';
import { assertLedgerExists } from '../ledgers';
import { ChainVerifier } from './log-chain';
import { compileLedgerQuery, type FieldResolver, type QueryField } from '../reads/ledger-query';
import { presentLog, type LedgerLog, type LogRow, type LogType } from './log';
import { checkCheckpoint, isCheckpointId, loadLogKeys, signCheckpoint, type Checkpoint, type LogPublicKey } from './log-signing';
import { compareState, MismatchList, StateReplay, type Mismatch } from './state-check';
import type { Executor } from '../types';

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

/**
 * The logs with their hashes: a log's hash is a row of `ledger_log_hashes` (written by the hasher, see log-hasher.ts),
 * absent until the hasher reaches it. USING merges `ledger` and `id`, so they stay unqualified (the left side's values).
 */
const logsWithHashes = (db: Executor) => db('ledger_logs').joinRaw('LEFT JOIN ledger_log_hashes USING (ledger, id)');

/** Newest first (id desc), as Formance. @throws ApiError LEDGER_NOT_FOUND */
export async function listLogs(db: Executor, ledger: string, filters: LogFilters, page: PageRequest): Promise<Page<LedgerLog>> {
  const condition = compileLedgerQuery(filters.query, logField, 'id, date, type');
  await assertLedgerExists(db, ledger);
  const query = logsWithHashes(db).where({ ledger }).select(COLUMNS);
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

/** A log as an export carries it: with its signed checkpoint when the hasher stored one. */
export interface StreamedLog extends LedgerLog {
  checkpoint?: Checkpoint;
}

/**
 * Every log in id order, a page at a time, each with its stored checkpoint. An export stops before a gap (`stopAtGap`); a verification reads on, so a
 * deleted log shows as a gap (a gap before committed logs cannot be a write in flight: ids are handed out under the
 * ledger row lock, which the write holds until it commits).
 */
export async function* streamLogs(
  db: Executor,
  ledger: string,
  options: { stopAtGap?: boolean; pageSize?: number } = {},
): AsyncGenerator<StreamedLog> {
  const pageSize = options.pageSize ?? 1000;
  await assertLedgerExists(db, ledger);
  type Row = LogRow & { key_id: string | null; signature: Buffer | null };
  // `.then` sends the query now (a query builder runs when awaited); the handler attached at once keeps a page that fails
  // while the caller works on the previous one from being an unhandled rejection: its failure is thrown where it is awaited.
  const page = (after: bigint): Promise<Row[]> => {
    const rows = db('ledger_logs as l')
      .leftJoin('ledger_log_hashes as h', function joinHash() {
        this.on('h.ledger', '=', 'l.ledger').andOn('h.id', '=', 'l.id');
      })
      .leftJoin('ledger_log_checkpoints as c', function joinCheckpoint() {
        this.on('c.ledger', '=', 'l.ledger').andOn('c.log_id', '=', 'l.id');
      })
      .where('l.ledger', ledger)
      .where('l.id', '>', after.toString())
      .orderBy('l.id')
      .limit(pageSize)
      .select(...COLUMNS.map((c) => (c === 'hash' ? 'h.hash' : `l.${c}`)), 'c.key_id', 'c.signature')
      .then((found) => found as Row[]);
    rows.catch(() => undefined);
    return rows;
  };
  let after = -1n;
  let next: Promise<Row[]> | undefined = page(after);
  try {
    while (next) {
      const rows: Row[] = await next;
      // The next page is asked for before this one is handed out: PostgreSQL reads it while the caller works on this one.
      next = rows.length === pageSize ? page(BigInt(rows[rows.length - 1].id)) : undefined;
      for (const row of rows) {
        if (options.stopAtGap && BigInt(row.id) !== after + 1n) return;
        after = BigInt(row.id);
        const log: StreamedLog = presentLog(row);
        if (row.key_id !== null && row.signature !== null) log.checkpoint = { keyId: row.key_id, signature: row.signature.toString('base64') };
        yield log;
      }
    }
  } finally {
    // A caller that stops early leaves no query running on its connection, nor a failure unhandled.
    if (next) await next.catch(() => undefined);
  }
}

export interface LogVerification {
  valid: boolean;
  /** Logs read, and how many of them carry a verified hash (the rest wait for the hasher). */
  logs: number;
  hashed: number;
  /** Signed checkpoints whose signature verified. */
  checkpoints: number;
  /** The last log a verified checkpoint covers (with every log before it); absent when none. */
  lastCheckpointId?: bigint;
  firstBroken?: { id: bigint; reason: string };
  /** Every difference found, chain and state, the first MISMATCHES_LISTED of them; `mismatchCount` counts them all. */
  mismatches: Mismatch[];
  mismatchCount: number;
}

/**
 * Audits stored logs in id order: the chain (ChainVerifier) and every checkpoint's signature against the platform's keys
 * (every key, rotated ones included). A hashed log at a checkpoint id without its checkpoint is broken too: deleting
 * checkpoints is how a chain re-hashed without the key would otherwise pass. Logs hashed before checkpoints existed
 * (`ledger_log_chain.checkpoints_from`) are not expected to have one.
 */
class LogAuditor {
  readonly chain = new ChainVerifier();
  checkpoints = 0;
  lastCheckpointId?: bigint;

  private constructor(
    private readonly db: Executor,
    private keys: LogPublicKey[],
    private readonly signFrom: bigint,
  ) {}

  static async of(db: Executor, ledger: string): Promise<LogAuditor> {
    const chain = await db('ledger_log_chain').where({ ledger }).first('checkpoints_from');
    return new LogAuditor(db, await loadLogKeys(db, false, false), chain ? BigInt(chain.checkpoints_from) : 0n);
  }

  /** @returns the problem with this log, or undefined */
  async next(log: StreamedLog): Promise<string | undefined> {
    const problem = this.chain.next(log);
    if (problem || log.hash === undefined) return problem;
    if (log.checkpoint) {
      if (!this.keys.some((k) => k.keyId === log.checkpoint!.keyId)) this.keys = await loadLogKeys(this.db, true, false);
      const bad = checkCheckpoint(this.keys, log.id, log.hash, log.checkpoint);
      if (bad) return bad;
      this.checkpoints += 1;
      this.lastCheckpointId = log.id;
    } else if (isCheckpointId(log.id) && log.id >= this.signFrom) {
      return `log ${log.id}: its signed checkpoint is missing`;
    }
    return undefined;
  }
}

/** Logs per page of the verification's read: fewer round trips, a few MB of parsed logs at a time. */
const VERIFY_PAGE = 5000;
/** Milliseconds the replay runs before it gives the event loop back. */
const TURN_MS = 2;

/**
 * Proves the ledger's state from its log, in one read-only snapshot (REPEATABLE READ: writers go on, and a write
 * committed meanwhile is in none of what is read):
 * - the chain: every log in id order, ids dense from 0 (SEQUENCE_GAP), hashes and checkpoint signatures (LogAuditor;
 *   its first problem is `firstBroken`, as a HASH_MISMATCH unless it is a gap);
 * - the state: every log replayed in memory through the ledger's rules (StateReplay), then compared with the stored
 *   volumes (VOLUME_MISMATCH), account and transaction metadata (METADATA_MISMATCH) and transactions (postings,
 *   timestamp, reference, reverted: TRANSACTION_MISMATCH), each table read by keyset pages (state-check.ts).
 * @throws ApiError LEDGER_NOT_FOUND, VALIDATION (a ledger created with HASH_LOGS DISABLED)
 */
export async function verifyLogChain(db: Knex, ledger: string): Promise<LogVerification> {
  return inTransaction(
    db,
    async (trx) => {
      await trx.raw('SET TRANSACTION READ ONLY');
      // Logs committed before this snapshot must all be found: a shorter stream lost its tail.
      const { logs: committed, hashing } = await logChainStatus(trx, ledger);
      if (hashing === 'DISABLED') throw validationError(`ledger "${ledger}" was created with HASH_LOGS DISABLED: its logs have no chain to verify`);
      const auditor = await LogAuditor.of(trx, ledger);
      const mismatches = new MismatchList();
      const replay = new StateReplay(mismatches);
      let firstBroken: { id: bigint; reason: string } | undefined;
      let expected = 0n;
      const gap = (from: bigint, to: bigint) =>
        mismatches.add({
          kind: 'SEQUENCE_GAP',
          logId: from,
          expected: from,
          actual: to,
          reason: to === from + 1n ? `log ${from}: missing` : `logs ${from}..${to - 1n}: missing`,
        });
      let read = 0;
      let turnStarted = performance.now();
      for await (const log of streamLogs(trx, ledger, { pageSize: VERIFY_PAGE })) {
        read += 1;
        // The replay is CPU work in the API's process: it gives the event loop back every few milliseconds, so the
        // requests of writers (and every other client) go on during a verification rather than wait for its end.
        if (read % 32 === 0 && performance.now() - turnStarted > TURN_MS) {
          await nextTurn();
          turnStarted = performance.now();
        }
        const gapped = log.id > expected;
        if (gapped) gap(expected, log.id);
        expected = log.id + 1n;
        if (!firstBroken) {
          const problem = await auditor.next(log);
          if (problem) {
            firstBroken = { id: log.id, reason: problem };
            // A gap is reported above; a hash or a signature that does not verify is reported here.
            if (!gapped) mismatches.add({ kind: 'HASH_MISMATCH', logId: log.id, reason: problem });
          }
        }
        replay.apply(log);
      }
      if (expected < committed) {
        gap(expected, committed);
        firstBroken ??= { id: expected, reason: `log ${expected}: missing (the ledger has written ${committed} logs)` };
      }
      await compareState(trx, ledger, replay, mismatches);
      return {
        valid: firstBroken === undefined && mismatches.count === 0,
        logs: read,
        hashed: auditor.chain.hashed,
        checkpoints: auditor.checkpoints,
        ...(auditor.lastCheckpointId !== undefined ? { lastCheckpointId: auditor.lastCheckpointId } : {}),
        ...(firstBroken ? { firstBroken } : {}),
        mismatches: mismatches.listed,
        mismatchCount: mismatches.count,
      };
    },
    { isolationLevel: 'repeatable read' },
  );
}

/**
 * The export: every log in id order, stopping before a write still in flight, each with its stored checkpoint; the
 * last hashed log is signed now when it has none, so an export always ends on a checkpoint an import can verify. The
 * export audits what it reads as it goes, and signs nothing once the chain or a checkpoint does not verify: the
 * platform key must not vouch for logs changed in the database.
 * @throws ApiError LEDGER_NOT_FOUND (at the first read)
 */
export async function* exportLogs(db: Executor, ledger: string): AsyncGenerator<StreamedLog> {
  const logs = streamLogs(db, ledger, { stopAtGap: true });
  const first = await logs.next();
  if (first.done) return;
  const auditor = await LogAuditor.of(db, ledger);
  const [key] = await loadLogKeys(db);
  let intact = true;
  let previous: StreamedLog | undefined;
  const sealed = (log: StreamedLog, next?: StreamedLog): StreamedLog =>
    intact && log.hash !== undefined && !log.checkpoint && next?.hash === undefined
      ? { ...log, checkpoint: signCheckpoint(key, log.id, log.hash) }
      : log;
  for (let log: StreamedLog | undefined = first.value; log; log = (await logs.next()).value as StreamedLog | undefined) {
    if (intact && (await auditor.next(log)) !== undefined) intact = false;
    if (previous) yield sealed(previous, log);
    previous = log;
  }
  if (previous) yield sealed(previous);
}
