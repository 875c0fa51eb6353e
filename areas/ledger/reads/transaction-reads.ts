import type { Knex } from 'knex';
import { LEDGER_NAME_PATTERN } from '../../../lib/grammar';
import { TRANSACTION_JSON_SQL, TRANSACTION_ROW_COLUMNS } from './transaction-json';
import type { TransactionRow } from './transactions';

interface PendingRead {
  ledger: string;
  id: string;
  resolve(row: unknown): void;
  reject(error: unknown): void;
}

/**
 * A row of the shared statement: the subscript of the read it answers (from 1), then its projection. The JSON
 * projections come as arrays, [subscript, text]; the row projection as an object with `i` among its columns.
 */
type AnswerRow = [number, string] | ({ i: number } & Record<string, unknown>);
/** The subscript of the read a row answers, and what that read is answered with: the row, or the view's JSON text. */
const subscriptOf = (row: AnswerRow): number => (Array.isArray(row) ? row[0] : row.i);
const answerOf = (row: AnswerRow): unknown => (Array.isArray(row) ? row[1] : row);

interface ReadQueue {
  /** The shared statement, selecting its projection for each read. */
  sql: string;
  /** The prepared statement's name, one per projection (a name must always stand for the same text on a connection). */
  name: string;
  /** Rows as arrays (the JSON projections) rather than objects. */
  rowMode?: 'array';
  pending: PendingRead[];
  inFlight: number;
  scheduled: boolean;
}

/** Bounded so one statement's result stays a few hundred kilobytes at most. */
const MAX_BATCH = 128;
/** Two statements in flight: the database runs the second while the API reads the first answer. */
const MAX_IN_FLIGHT = 2;

const ROW_COLUMNS = TRANSACTION_ROW_COLUMNS.map((column) => `t.${column}`).join(', ');
const PROJECTIONS = { row: ROW_COLUMNS, v1: `${TRANSACTION_JSON_SQL.v1} AS json`, v2: `${TRANSACTION_JSON_SQL.v2} AS json` };
type Projection = keyof typeof PROJECTIONS;

// generate_subscripts() gives the planner the same row estimate whatever the arrays hold, and LIMIT 1 keeps the plan a
// nested loop over the primary key, which a plan made for a small table would otherwise turn into a hash join over a
// scan of it (a test checks the plan). Each row carries the subscript of the read it answers (k.i, from 1), so answers
// are matched to reads by position.
const sharedRead = (projection: Projection) =>
  `SELECT k.i, ${PROJECTIONS[projection]} FROM generate_subscripts(:ids::bigint[], 1) AS k(i)
   CROSS JOIN LATERAL (SELECT * FROM ledger_transactions WHERE ledger = (:ledgers::text[])[k.i] AND id = (:ids::bigint[])[k.i] LIMIT 1) t`;

const queues = new WeakMap<Knex, Map<Projection, ReadQueue>>();

/**
 * Reads one transaction row by (ledger, txid), sharing one statement with the reads of other requests that reach this
 * process in the same event-loop turn or while its earlier statements run (the hottest read, op 11: per request, a
 * statement costs a pool checkout, a socket write and PostgreSQL's work per statement, more than the row itself).
 * A read is always answered by a statement sent after it was asked, so it sees every write acknowledged before it.
 */
export function readTransactionRow(db: Knex, ledger: string, id: bigint): Promise<TransactionRow | undefined> {
  return read(db, 'row', ledger, id) as Promise<TransactionRow | undefined>;
}

/** The same, answered with the v1 or v2 view's JSON text written by PostgreSQL (transaction-json.ts). */
export function readTransactionJson(db: Knex, ledger: string, id: bigint, view: 'v1' | 'v2'): Promise<string | undefined> {
  return read(db, view, ledger, id) as Promise<string | undefined>;
}

// A name no ledger can have is a miss without a statement: one bad value (a NUL byte, invalid UTF-8) would make
// PostgreSQL refuse the whole shared statement, and with it every other request's read.
const LEDGER_NAME = new RegExp(LEDGER_NAME_PATTERN);

function read(db: Knex, projection: Projection, ledger: string, id: bigint): Promise<unknown> {
  if (!LEDGER_NAME.test(ledger)) return Promise.resolve(undefined);
  let byProjection = queues.get(db);
  if (!byProjection) queues.set(db, (byProjection = new Map()));
  let queue = byProjection.get(projection);
  if (!queue) {
    const rowMode = projection === 'row' ? undefined : ('array' as const);
    byProjection.set(
      projection,
      (queue = { sql: sharedRead(projection), name: `ledger-transaction-read-${projection}`, rowMode, pending: [], inFlight: 0, scheduled: false }),
    );
  }
  const target = queue;
  const promise = new Promise<unknown>((resolve, reject) => target.pending.push({ ledger, id: id.toString(), resolve, reject }));
  schedule(db, target);
  return promise;
}

function schedule(db: Knex, queue: ReadQueue): void {
  if (queue.scheduled || queue.inFlight >= MAX_IN_FLIGHT || queue.pending.length === 0) return;
  queue.scheduled = true;
  // setImmediate, not a microtask: the requests parsed in this turn's poll phase reach here before it runs.
  setImmediate(() => {
    queue.scheduled = false;
    void flush(db, queue);
  });
}

async function flush(db: Knex, queue: ReadQueue): Promise<void> {
  const batch = queue.pending.splice(0, MAX_BATCH);
  if (batch.length === 0) return;
  queue.inFlight += 1;
  // What MAX_BATCH left behind may fill a statement of its own beside this one.
  schedule(db, queue);
  try {
    const rows = await sharedRows(db, queue, batch);
    const answers: unknown[] = new Array(batch.length);
    for (const row of rows) answers[subscriptOf(row) - 1] = answerOf(row);
    for (let n = 0; n < batch.length; n += 1) batch[n].resolve(answers[n]);
  } catch (error) {
    // A statement that failed for one read's sake must not fail the others: each is asked again alone.
    if (batch.length === 1) batch[0].reject(error);
    else for (const read of batch) void readAlone(db, queue, read);
  } finally {
    queue.inFlight -= 1;
    schedule(db, queue);
  }
}

async function readAlone(db: Knex, queue: ReadQueue, read: PendingRead): Promise<void> {
  try {
    const rows = await sharedRows(db, queue, [read]);
    read.resolve(rows[0] && answerOf(rows[0]));
  } catch (error) {
    read.reject(error);
  }
}

/**
 * Runs the shared statement for `reads` on a pooled connection, with knex's driver options (node-postgres's query
 * config): array rows (rowMode) for the JSON projections, and a name, which makes it a prepared statement. PostgreSQL
 * then parses and plans it once per connection instead of at every statement: of the database's CPU per read, planning
 * this statement was about two thirds (docs/decisions/0031-shared-reads-by-id.md).
 */
async function sharedRows(db: Knex, queue: ReadQueue, reads: PendingRead[]): Promise<AnswerRow[]> {
  const query = db.raw(queue.sql, { ledgers: reads.map((read) => read.ledger), ids: reads.map((read) => read.id) });
  const result = (await query.options({ name: queue.name, ...(queue.rowMode ? { rowMode: queue.rowMode } : {}) })) as { rows: AnswerRow[] };
  return result.rows;
}
