import { inStatement, inTransaction } from '../../db/errors';
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

/**
 * One statement (the stage row, the instance's updated_at, STARTED_WORKFLOW_STAGE and its NOTIFY): the instance
 * workflow writes this for every stage, and each round trip to PostgreSQL costs more CPU than the write itself.
 */
export async function recordStageStarted(db: Db, mark: StageMark): Promise<void> {
  const event: PlatformEvent = { app: 'orchestration', type: 'STARTED_WORKFLOW_STAGE', payload: { id: mark.workflowID, instanceID: mark.instanceID, number: mark.number } };
  await inStatement(
    db,
    `WITH s AS (
       INSERT INTO orchestration_stage_statuses (instance_id, stage, started_at) VALUES (?, ?, ?::timestamptz)
       ON CONFLICT (instance_id, stage) DO NOTHING RETURNING stage
     ), touched AS (
       UPDATE orchestration_instances SET updated_at = now() WHERE id = ? AND EXISTS (SELECT 1 FROM s) RETURNING id
     ), e AS (${outboxInsert('EXISTS (SELECT 1 FROM s)')})
     ${NOTIFY_IF_EMITTED}`,
    [mark.instanceID, mark.number, new Date(mark.at), mark.instanceID, ...outboxParameters([event]), OUTBOX_CHANNEL],
  );
}

/**
 * With `endsInstance`, the instance ends too (with the stage's error). One statement, as recordStageStarted; its
 * events are in this order, so consumers see SUCCEEDED/FAILED_WORKFLOW_STAGE before SUCCEEDED/FAILED_WORKFLOW. The
 * instance's end does not depend on the stage's being new: a retry after a stage end whose instance end was lost
 * still ends the instance. Returns the stage's earlier end time when it had already ended (a replayed write).
 */
export async function recordStageEnded(db: Db, mark: StageMark & { error?: string; endsInstance?: boolean }): Promise<{ alreadyEndedAt?: Date }> {
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
  const result = await inStatement(
    db,
    `WITH s AS (
       UPDATE orchestration_stage_statuses SET terminated_at = ?::timestamptz, error = ?
       WHERE instance_id = ? AND stage = ? AND terminated_at IS NULL RETURNING stage
     ), ended AS (
       UPDATE orchestration_instances SET terminated = true, terminated_at = ?::timestamptz, error = ?, updated_at = now()
       WHERE id = ? AND terminated = false AND ?::boolean RETURNING id
     ), touched AS (
       UPDATE orchestration_instances SET updated_at = now()
       WHERE id = ? AND EXISTS (SELECT 1 FROM s) AND NOT EXISTS (SELECT 1 FROM ended) RETURNING id
     ), e AS (${outboxInsert('(e.n = 1 AND EXISTS (SELECT 1 FROM s)) OR (e.n = 2 AND EXISTS (SELECT 1 FROM ended))')}),
     n AS (${NOTIFY_IF_EMITTED})
     SELECT (SELECT count(*) FROM n) AS notified,
       (SELECT terminated_at FROM orchestration_stage_statuses WHERE instance_id = ? AND stage = ?) AS already_ended_at`,
    [at, error, mark.instanceID, mark.number, at, error, mark.instanceID, Boolean(mark.endsInstance), mark.instanceID, ...outboxParameters(events), OUTBOX_CHANNEL, mark.instanceID, mark.number],
  );
  // The outer SELECT reads the table as it was before this statement's updates: a time here is an earlier end's.
  const earlier = (result.rows[0] as { already_ended_at: Date | null } | undefined)?.already_ended_at;
  return earlier ? { alreadyEndedAt: earlier } : {};
}

export async function recordInstanceEnded(db: Db, mark: InstanceEndMark): Promise<void> {
  await inTransaction(db, (trx) => instanceEnded(trx, mark));
}

interface InstanceEndMark { instanceID: string; error?: string; at: Date | string }

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
