import type { Knex } from 'knex';
import type { TransactionRow } from './transactions';

interface PendingRead {
  ledger: string;
  id: string;
  resolve(row: TransactionRow | undefined): void;
  reject(error: unknown): void;
}

interface ReadQueue {
  pending: PendingRead[];
  inFlight: number;
  scheduled: boolean;
}

/** Bounded so one statement's result stays a few hundred kilobytes at most. */
const MAX_BATCH = 128;
/** Two statements in flight keep PostgreSQL busy while the API reads the previous result. */
const MAX_IN_FLIGHT = 2;

const queues = new WeakMap<Knex, ReadQueue>();

/**
 * Reads one transaction row by (ledger, txid), sharing one statement with the reads of other requests that reach this
 * process in the same event-loop turn or while its earlier statements run (the hottest read, op 11: per request, a
 * statement costs a pool checkout, a socket write and PostgreSQL's parse and plan, more than the row itself).
 * A read is always answered by a statement sent after it was asked, so it sees every write acknowledged before it.
 */
export function readTransactionRow(db: Knex, ledger: string, id: bigint): Promise<TransactionRow | undefined> {
  let queue = queues.get(db);
  if (!queue) queues.set(db, (queue = { pending: [], inFlight: 0, scheduled: false }));
  const target = queue;
  const promise = new Promise<TransactionRow | undefined>((resolve, reject) => target.pending.push({ ledger, id: id.toString(), resolve, reject }));
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
  try {
    const { rows } = await db.raw(
      `SELECT t.* FROM unnest(?::text[], ?::bigint[]) AS k(ledger, id) JOIN ledger_transactions t ON t.ledger = k.ledger AND t.id = k.id`,
      [batch.map((read) => read.ledger), batch.map((read) => read.id)],
    );
    const found = new Map<string, TransactionRow>();
    for (const row of rows as TransactionRow[]) found.set(`${row.id}\u0000${row.ledger}`, row);
    for (const read of batch) read.resolve(found.get(`${read.id}\u0000${read.ledger}`));
  } catch (error) {
    for (const read of batch) read.reject(error);
  } finally {
    queue.inFlight -= 1;
    schedule(db, queue);
  }
}
