import { ApiError } from '../lib/errors';
import type { Executor } from './knex';

/**
 * Waits until no other session of this database is still in a transaction it began at or before `instant`.
 *
 * A point-in-time read at a past instant must not depend on when it runs: a write whose time (a ledger transaction's
 * default timestamp, a balance's recording time) is at or before `instant` is chosen inside its database transaction,
 * so it can only come from a transaction begun by then, and it may commit after the instant. Once every such
 * transaction has ended, whatever it wrote is visible to the next statement (READ COMMITTED), and any later
 * transaction can only write later times. The check compares PostgreSQL's clock (`xact_start`) with the instant, so it
 * holds as far as the writers' clocks agree with the database's.
 *
 * An instant older than every open transaction costs one query. A transaction open for longer than `timeoutMs` makes
 * the read answer 503 rather than wait without end.
 */
export async function settleTransactionsBefore(db: Executor, instant: Date, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
    const { rows } = await db.raw(
      `SELECT count(*)::int AS open FROM pg_stat_activity
       WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()
         AND state <> 'idle' AND xact_start <= ?`,
      [instant],
    );
    if ((rows[0] as { open: number }).open === 0) return;
    if (Date.now() + delay > deadline) {
      throw new ApiError(
        'SERVICE_UNAVAILABLE',
        `a database transaction begun before ${instant.toISOString()} is still open; retry the point-in-time read later`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
