import type { Knex } from 'knex';
import { inStatement, inTransaction, translateDbError } from '../../db/errors';
import type { Db, Executor } from '../../db/knex';
import { emitEvents, NOTIFY_IF_EMITTED, OUTBOX_CHANNEL, outboxInsert, outboxParameters, type PlatformEvent } from '../../db/outbox';

/**
 * Writes of the instance workflow's activities into the read model, each with its Formance event in the same
 * transaction. Every write is conditional (insert-if-absent, update-if-open), so a retried activity neither moves a
 * timestamp nor emits an event twice.
 */

export interface StageMark {
  instanceID: string;
  workflowID: string;
  number: number;
  /** Workflow time, so the read model and the history agree. */
  at: Date | string;
}

/** One statement on the pool (retried as inStatement does), or inside the caller's transaction (a step's fence). */
function statement(db: Executor, sql: string, bindings: readonly unknown[]) {
  return (db as Knex.Transaction).isTransaction
    ? db.raw(sql, bindings as Knex.RawBinding[]).catch((error) => Promise.reject(translateDbError(error)))
    : inStatement(db as Db, sql, bindings);
}

/**
 * One statement (the stage row, the instance's updated_at, STARTED_WORKFLOW_STAGE and its NOTIFY): the instance
 * workflow writes this for every stage, and each round trip to PostgreSQL costs more CPU than the write itself.
 * The start stored is never before the previous stage's end: the times come from different clocks (the workflow
 * task's, the worker's), and a stage does not start before the one before it ended.
 * @returns the start stored (an earlier one when the stage had already started: a replayed write)
 */
export async function recordStageStarted(db: Executor, mark: StageMark): Promise<{ startedAt: Date }> {
  const event: PlatformEvent = {
    app: 'orchestration',
    type: 'STARTED_WORKFLOW_STAGE',
    payload: { id: mark.workflowID, instanceID: mark.instanceID, number: mark.number },
  };
  const result = await statement(
    db,
    `WITH s AS (
       INSERT INTO orchestration_stage_statuses (instance_id, stage, started_at)
       VALUES (?, ?, greatest(?::timestamptz, (SELECT terminated_at FROM orchestration_stage_statuses WHERE instance_id = ? AND stage = ? - 1)))
       ON CONFLICT (instance_id, stage) DO NOTHING RETURNING stage, started_at
     ), touched AS (
       UPDATE orchestration_instances SET updated_at = now() WHERE id = ? AND EXISTS (SELECT 1 FROM s) RETURNING id
     ), e AS (${outboxInsert('EXISTS (SELECT 1 FROM s)')}),
     n AS (${NOTIFY_IF_EMITTED})
     SELECT (SELECT count(*) FROM n) AS notified,
       coalesce((SELECT started_at FROM s), (SELECT started_at FROM orchestration_stage_statuses WHERE instance_id = ? AND stage = ?)) AS started_at`,
    [
      mark.instanceID,
      mark.number,
      new Date(mark.at),
      mark.instanceID,
      mark.number,
      mark.instanceID,
      ...outboxParameters([event]),
      OUTBOX_CHANNEL,
      mark.instanceID,
      mark.number,
    ],
  );
  const stored = (result.rows[0] as { started_at: Date | null } | undefined)?.started_at;
  return { startedAt: stored ? new Date(stored) : new Date(mark.at) };
}

/**
 * With `endsInstance`, the instance ends too (with the stage's error). One statement, as recordStageStarted; its
 * events are in this order, so consumers see SUCCEEDED/FAILED_WORKFLOW_STAGE before SUCCEEDED/FAILED_WORKFLOW. The
 * instance's end does not depend on the stage's being new: a retry after a stage end whose instance end was lost
 * still ends the instance. The end stored is never before the stage's start (see recordStageStarted), and the
 * instance ends at its last stage's end. `db` may be a step's fence transaction: the stage then ends with its write.
 * @returns the stage's end as stored (`endedAt`, `error`: an earlier end's when the stage had already ended, e.g. by
 * its last step just before an abort), and that earlier end's time (`alreadyEndedAt`)
 */
export async function recordStageEnded(
  db: Executor,
  mark: StageMark & { error?: string; endsInstance?: boolean },
): Promise<{ endedAt: Date; error?: string; alreadyEndedAt?: Date }> {
  const base = { id: mark.workflowID, instanceID: mark.instanceID };
  const events: PlatformEvent[] = [
    mark.error === undefined
      ? { app: 'orchestration', type: 'SUCCEEDED_WORKFLOW_STAGE', payload: { ...base, number: mark.number } }
      : { app: 'orchestration', type: 'FAILED_WORKFLOW_STAGE', payload: { ...base, number: mark.number, error: mark.error } },
    mark.error === undefined
      ? { app: 'orchestration', type: 'SUCCEEDED_WORKFLOW', payload: base }
      : { app: 'orchestration', type: 'FAILED_WORKFLOW', payload: { ...base, error: mark.error } },
  ];
  const at = new Date(mark.at);
  const error = mark.error ?? null;
  // `before` and the outer SELECT read the table as it was before this statement's updates: a time there is an
  // earlier end's.
  const result = await statement(
    db,
    `WITH before AS (
       SELECT terminated_at, error FROM orchestration_stage_statuses WHERE instance_id = ? AND stage = ?
     ), s AS (
       UPDATE orchestration_stage_statuses SET terminated_at = greatest(?::timestamptz, started_at), error = ?
       WHERE instance_id = ? AND stage = ? AND terminated_at IS NULL RETURNING stage, terminated_at
     ), ended AS (
       UPDATE orchestration_instances
       SET terminated = true, terminated_at = coalesce((SELECT terminated_at FROM s), (SELECT terminated_at FROM before), ?::timestamptz), error = ?, updated_at = now()
       WHERE id = ? AND terminated = false AND ?::boolean RETURNING id
     ), touched AS (
       UPDATE orchestration_instances SET updated_at = now()
       WHERE id = ? AND EXISTS (SELECT 1 FROM s) AND NOT EXISTS (SELECT 1 FROM ended) RETURNING id
     ), e AS (${outboxInsert('(e.n = 1 AND EXISTS (SELECT 1 FROM s)) OR (e.n = 2 AND EXISTS (SELECT 1 FROM ended))')}),
     n AS (${NOTIFY_IF_EMITTED})
     SELECT (SELECT count(*) FROM n) AS notified, (SELECT terminated_at FROM before) AS already_ended_at, (SELECT error FROM before) AS earlier_error,
       (SELECT terminated_at FROM s) AS ended_at`,
    [
      mark.instanceID,
      mark.number,
      at,
      error,
      mark.instanceID,
      mark.number,
      at,
      error,
      mark.instanceID,
      Boolean(mark.endsInstance),
      mark.instanceID,
      ...outboxParameters(events),
      OUTBOX_CHANNEL,
    ],
  );
  const row = result.rows[0] as { already_ended_at: Date | null; earlier_error: string | null; ended_at: Date | null } | undefined;
  const earlier = row?.already_ended_at ? new Date(row.already_ended_at) : undefined;
  const endedAt = row?.ended_at ? new Date(row.ended_at) : (earlier ?? at);
  if (!earlier) return { endedAt, ...(mark.error !== undefined ? { error: mark.error } : {}) };
  return { endedAt, alreadyEndedAt: earlier, ...(row?.earlier_error ? { error: row.earlier_error } : {}) };
}

export async function recordInstanceEnded(db: Db, mark: InstanceEndMark): Promise<void> {
  await inTransaction(db, (trx) => instanceEnded(trx, mark));
}

interface InstanceEndMark {
  instanceID: string;
  error?: string;
  at: Date | string;
}

async function instanceEnded(trx: Executor, mark: InstanceEndMark): Promise<void> {
  const rows = await trx('orchestration_instances')
    .where({ id: mark.instanceID, terminated: false })
    .update({ terminated: true, terminated_at: new Date(mark.at), error: mark.error ?? null, updated_at: trx.fn.now() })
    .returning('workflow_id');
  if (rows.length === 0) return;
  const base = { id: rows[0].workflow_id, instanceID: mark.instanceID };
  await emitEvents(trx, [
    mark.error === undefined
      ? { app: 'orchestration', type: 'SUCCEEDED_WORKFLOW', payload: base }
      : { app: 'orchestration', type: 'FAILED_WORKFLOW', payload: { ...base, error: mark.error } },
  ]);
}
