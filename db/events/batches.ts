import type { Db, Executor } from '../knex';
import { OUTBOX_COLUMNS, toEnvelope, type EventEnvelope } from './envelope';
import { loadSubscriptions } from './subscriptions';

/** The workflow id of a batch: one batch, one `processEventBatch` run, whoever starts it and however often. */
export const batchWorkflowId = (batchId: string): string => `events-${batchId}`;

/**
 * Claims up to `limit` undispatched outbox rows that belong to no batch yet (oldest first, FOR UPDATE SKIP LOCKED so
 * several dispatchers take disjoint rows), in one transaction: rows nobody listens to are marked dispatched, the
 * others get `batch_id` = the id of the first of them. Once this commits the batch's membership is fixed: a dispatcher
 * that crashes before starting its workflow leaves a batch that `pendingBatches` finds again.
 * @returns how many rows were claimed (a full `limit` means there may be more).
 */
export async function claimOutboxBatch(db: Db, limit: number): Promise<number> {
  return db.transaction(async (trx) => {
    const rows: Array<{ id: string; app: string; type: string }> = await trx('events_outbox')
      .select('id', 'app', 'type')
      .whereNull('dispatched_at')
      .whereNull('batch_id')
      .orderBy('seq')
      .limit(limit)
      .forUpdate()
      .skipLocked();
    if (rows.length === 0) return 0;
    const subscribed = await loadSubscriptions(trx);
    const heard = rows.filter((row) => subscribed(row)).map((row) => row.id);
    const unheard = rows.filter((row) => !subscribed(row)).map((row) => row.id);
    // Events nobody listens to need no workflow (see loadSubscriptions).
    if (unheard.length > 0) await trx('events_outbox').whereIn('id', unheard).update({ dispatched_at: trx.fn.now() });
    if (heard.length > 0) await trx('events_outbox').whereIn('id', heard).update({ batch_id: heard[0] });
    return rows.length;
  });
}

/** Batches claimed but not yet handed to Temporal (just claimed, or left by a crash), oldest first. */
export async function pendingBatches(db: Executor): Promise<string[]> {
  const { rows } = await db.raw(
    `SELECT batch_id FROM events_outbox WHERE dispatched_at IS NULL AND batch_id IS NOT NULL GROUP BY batch_id ORDER BY min(seq)`,
  );
  return rows.map((row: { batch_id: string }) => row.batch_id);
}

/**
 * A batch's events in commit order: always the same list for one batch id, as its membership never changes. Empty
 * once the batch is dispatched (a whole batch is marked in one statement, so never partly).
 */
export async function batchEvents(db: Executor, batchId: string): Promise<EventEnvelope[]> {
  const rows = await db('events_outbox').select(OUTBOX_COLUMNS).where({ batch_id: batchId }).whereNull('dispatched_at').orderBy('seq');
  return rows.map(toEnvelope);
}

export async function markBatchDispatched(db: Executor, batchId: string): Promise<void> {
  await db('events_outbox').where({ batch_id: batchId }).whereNull('dispatched_at').update({ dispatched_at: db.fn.now() });
}
