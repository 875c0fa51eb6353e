import type { Knex } from 'knex';
import { pollUntil } from './eventually';

/** The PostgreSQL backend (process id) a transaction's connection talks to. */
export async function backendPid(trx: Knex.Transaction): Promise<number> {
  const { rows } = await trx.raw('SELECT pg_backend_pid() AS pid');
  return rows[0].pid as number;
}

/**
 * Waits until backend `pid` waits for a lock another transaction holds (a row, a tuple or a table: `wait_event_type`
 * 'Lock'), read from another connection of `db`: the event that shows a statement is blocked, where a pause would only
 * hope it.
 */
export async function blockedOnLock(db: Knex, pid: number): Promise<void> {
  await pollUntil(
    async () => (await db.raw(`SELECT wait_event_type FROM pg_stat_activity WHERE pid = ?`, [pid])).rows[0]?.wait_event_type,
    (waitEvent) => waitEvent === 'Lock',
    { intervalMs: 20, what: `backend ${pid} to wait for a lock` },
  );
}
