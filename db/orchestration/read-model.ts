import { inTransaction } from '../errors';
import type { Db, Executor } from '../knex';
import { emitEvents } from '../outbox';

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

export async function recordStageStarted(db: Db, mark: StageMark): Promise<void> {
  await inTransaction(db, async (trx) => {
    const inserted = await trx('orchestration_stage_statuses')
      .insert({ instance_id: mark.instanceID, stage: mark.number, started_at: new Date(mark.at) })
      .onConflict(['instance_id', 'stage'])
      .ignore()
      .returning('stage');
    if (inserted.length === 0) return;
    await trx('orchestration_instances').where({ id: mark.instanceID }).update({ updated_at: trx.fn.now() });
    await emitEvents(trx, [
      { app: 'orchestration', type: 'STARTED_WORKFLOW_STAGE', payload: { id: mark.workflowID, instanceID: mark.instanceID, number: mark.number } },
    ]);
  });
}

/**
 * With `endsInstance`, the instance's end (as recordInstanceEnded) is written in the same transaction, after the
 * stage's: consumers see SUCCEEDED/FAILED_WORKFLOW_STAGE before SUCCEEDED/FAILED_WORKFLOW.
 */
export async function recordStageEnded(db: Db, mark: StageMark & { error?: string; endsInstance?: boolean }): Promise<void> {
  await inTransaction(db, async (trx) => {
    await stageEnded(trx, mark);
    if (mark.endsInstance) await instanceEnded(trx, { instanceID: mark.instanceID, error: mark.error, at: mark.at });
  });
}

export async function recordInstanceEnded(db: Db, mark: InstanceEndMark): Promise<void> {
  await inTransaction(db, (trx) => instanceEnded(trx, mark));
}

interface InstanceEndMark { instanceID: string; error?: string; at: Date | string }

async function stageEnded(trx: Executor, mark: StageMark & { error?: string }): Promise<void> {
  const updated = await trx('orchestration_stage_statuses')
    .where({ instance_id: mark.instanceID, stage: mark.number })
    .whereNull('terminated_at')
    .update({ terminated_at: new Date(mark.at), error: mark.error ?? null });
  if (updated === 0) return;
  await trx('orchestration_instances').where({ id: mark.instanceID }).update({ updated_at: trx.fn.now() });
  const base = { id: mark.workflowID, instanceID: mark.instanceID, number: mark.number };
  await emitEvents(trx, [
    mark.error === undefined
      ? { app: 'orchestration', type: 'SUCCEEDED_WORKFLOW_STAGE', payload: base }
      : { app: 'orchestration', type: 'FAILED_WORKFLOW_STAGE', payload: { ...base, error: mark.error } },
  ]);
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
