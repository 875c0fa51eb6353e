import type { Knex } from 'knex';
import { inTransaction } from '../../db/errors';
import type { Db } from '../../db/knex';
import { ApiError, notFound } from '../../lib/errors';
import { ABORTED } from '../../lib/orchestration/failure-codes';

/**
 * The abort fence. A step that writes runs `work` through this: one database transaction that first takes a share
 * lock on the instance's row and reads its abort marker, then makes the step's write (and, for a stage's last step,
 * the stage's end) in that same transaction. The abort (abortInstance) sets the marker with an UPDATE of that row,
 * committed before it answers. The row lock orders the two, whatever Temporal does with the cancellation:
 * - the step locked first: the abort's UPDATE waits until the step's transaction has committed (or rolled back), so
 *   the write is committed before the abort answers, and a stage ended by it is reported ended;
 * - the abort committed first: the step reads the marker (a locking read sees the latest committed row) and is refused
 *   with ABORTED before writing anything.
 * The same statement sets the transaction-local `platform.causation` to the instance's causation chain, which every
 * event the write emits carries (events_outbox.causation's default).
 * A step whose write commits on its own connection (ProviderTransfer: the payments area commits the initiation in its
 * own transaction) does not use `trx`: the lock is then held around that write, which commits before the lock is
 * released. The same order, at the cost of a second connection.
 * @throws ApiError ABORTED, NOT_FOUND (no such instance)
 */
export async function inInstanceFence<T>(db: Db, instanceID: string, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return inTransaction(db, async (trx) => {
    const { rows } = await trx.raw(
      `SELECT aborted_at, set_config('platform.causation', coalesce(causation, ''), true) FROM orchestration_instances WHERE id = ? FOR SHARE`,
      [instanceID],
    );
    const row = rows[0] as { aborted_at: Date | null } | undefined;
    if (!row) throw notFound(`instance ${instanceID} not found`);
    if (row.aborted_at) throw new ApiError(ABORTED, `instance ${instanceID} was aborted`, { status: 409 });
    return work(trx);
  });
}

/**
 * The abort's marker, written (and committed) before the abort asks Temporal to cancel and answers. Waits for any step
 * of the instance inside its fence. Repeating it keeps the first time.
 * @returns false when the instance has already terminated
 * @throws ApiError NOT_FOUND
 */
export async function markAborted(db: Db, instanceID: string): Promise<boolean> {
  const { rows } = await db.raw(
    `WITH marked AS (
       UPDATE orchestration_instances SET aborted_at = coalesce(aborted_at, now()), updated_at = now()
       WHERE id = ? AND terminated = false RETURNING id
     ) SELECT (SELECT count(*) FROM marked)::int AS marked, (SELECT count(*) FROM orchestration_instances WHERE id = ?)::int AS found`,
    [instanceID, instanceID],
  );
  if (!rows[0]?.found) throw notFound(`instance ${instanceID} not found`);
  return rows[0].marked > 0;
}
