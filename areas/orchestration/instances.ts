import { randomUUID } from 'node:crypto';
import type { CausationLink, EventCausation } from '../events';
import { ApiError, notFound } from '../../lib/errors';
import { stringifyJson } from '../../lib/json';
import type { TemporalDeps } from '../../lib/temporal';
import type { ListQuery } from '../../db/pagination';
import { inStatement } from '../../db/errors';
import type { Db, Executor } from '../../db/knex';
import { NOTIFY_IF_EMITTED, OUTBOX_CHANNEL, outboxInsert, outboxParameters, type PlatformEvent } from '../../db/outbox';
import { keysetPage, type Page } from '../../db/pagination';
import { cancelInstance, InstanceNotRunning, signalEvent, startInstance } from './engine';
import { markAborted } from './fence';
import { recordStageEnded } from './read-model';
import { isUuid, type WorkflowRow } from './workflows';

export interface StageStatus {
  stage: number;
  instanceID: string;
  startedAt: Date;
  terminatedAt?: Date;
  error?: string;
}

export interface WorkflowInstance {
  workflowID: string;
  id: string;
  createdAt: Date;
  updatedAt: Date;
  status: StageStatus[];
  terminated: boolean;
  terminatedAt?: Date;
  error?: string;
}

export interface InstanceRow {
  id: string;
  workflow_id: string;
  trigger_id: string | null;
  created_at: Date;
  updated_at: Date;
  terminated: boolean;
  terminated_at: Date | null;
  error: string | null;
}

interface StageRow {
  instance_id: string;
  stage: number;
  started_at: Date;
  terminated_at: Date | null;
  error: string | null;
}

export interface OrchestrationDeps {
  db: Db;
  temporal: TemporalDeps;
}

/** Upper bound of `wait=true`: past it the run answers with the instance as it stands (terminated false). */
export const RUN_WAIT_LIMIT_MS = 60_000;

function present(row: InstanceRow, stages: StageRow[]): WorkflowInstance {
  return {
    workflowID: row.workflow_id,
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    status: stages.map((s) => ({
      stage: s.stage,
      instanceID: s.instance_id,
      startedAt: s.started_at,
      ...(s.terminated_at ? { terminatedAt: s.terminated_at } : {}),
      ...(s.error ? { error: s.error } : {}),
    })),
    terminated: row.terminated,
    ...(row.terminated_at ? { terminatedAt: row.terminated_at } : {}),
    ...(row.error ? { error: row.error } : {}),
  };
}

/**
 * The workflow's lookup, the instance row, stage 0's start and their events (STARTED_WORKFLOW, then
 * STARTED_WORKFLOW_STAGE, with one NOTIFY) in one statement: a run pays one round trip to PostgreSQL before Temporal
 * instead of six, and its workflow starts with its first stage already recorded (InstanceInput.firstStageStartedAt).
 * Throws NOT_FOUND (workflow unknown or deleted), CONFLICT.
 */
async function createInstanceRow(
  db: Db,
  workflowID: string,
  id: string,
  variables: Record<string, string>,
  startedAt: Date,
  triggerID?: string,
  parentChain: CausationLink[] = [],
): Promise<WorkflowRow> {
  if (!isUuid(workflowID)) throw notFound(`workflow ${workflowID} not found`);
  const ids = { id: workflowID.toLowerCase(), instanceID: id };
  // What the instance's writes carry (fence.ts sets it for each write): the chain that led to it, then itself.
  const causation: EventCausation = { chain: [...parentChain, { instanceID: id, workflowID: ids.id, ...(triggerID ? { triggerID } : {}) }] };
  const events: PlatformEvent[] = [
    { app: 'orchestration', type: 'STARTED_WORKFLOW', payload: ids },
    { app: 'orchestration', type: 'STARTED_WORKFLOW_STAGE', payload: { ...ids, number: 0 } },
  ];
  const result = await inStatement(
    db,
    `WITH w AS (SELECT * FROM orchestration_workflows WHERE id = ? AND deleted_at IS NULL),
     i AS (INSERT INTO orchestration_instances (id, workflow_id, trigger_id, variables, causation) SELECT ?, w.id, ?, ?::jsonb, ? FROM w RETURNING id),
     s AS (
       INSERT INTO orchestration_stage_statuses (instance_id, stage, started_at)
       SELECT i.id, 0, ?::timestamptz FROM i, w WHERE jsonb_array_length(coalesce(w.config->'stages', '[]'::jsonb)) > 0 RETURNING stage
     ),
     e AS (${outboxInsert('(e.n = 1 AND EXISTS (SELECT 1 FROM i)) OR (e.n = 2 AND EXISTS (SELECT 1 FROM s))')}),
     n AS (${NOTIFY_IF_EMITTED})
     SELECT w.*, (SELECT count(*) FROM n) AS notified FROM w`,
    [workflowID, id, triggerID ?? null, stringifyJson(variables), stringifyJson(causation), startedAt, ...outboxParameters(events), OUTBOX_CHANNEL],
    { conflict: `instance ${id} already exists` },
  );
  // `notified` only makes the statement read `n`, so the NOTIFY cannot be planned away.
  const row = result.rows[0] as (WorkflowRow & { notified?: unknown }) | undefined;
  if (!row) throw notFound(`workflow ${workflowID} not found`);
  delete row.notified;
  return row;
}

/**
 * Op 12. The instance row (and STARTED_WORKFLOW) is committed before the Temporal workflow starts, so the workflow's
 * activities always find it; the workflow id is the instance id, so the Web UI finds a run by the id the API returned.
 * With `wait`, returns once the run has ended, or after RUN_WAIT_LIMIT_MS with the current state.
 * Throws NOT_FOUND (workflow), CONFLICT (instanceID taken), SERVICE_UNAVAILABLE (Temporal refused the start; the instance
 * is recorded as failed).
 */
export async function runWorkflow(
  deps: OrchestrationDeps,
  workflowID: string,
  variables: Record<string, string>,
  options: { wait?: boolean; triggerID?: string; instanceID?: string; causation?: CausationLink[] } = {},
): Promise<WorkflowInstance> {
  // A caller that must not start twice (a retried trigger activity) chooses the id; a reused id is a CONFLICT.
  const id = options.instanceID ?? randomUUID();
  const startedAt = new Date();
  const workflow = await createInstanceRow(deps.db, workflowID, id, variables, startedAt, options.triggerID, options.causation);
  let handle;
  try {
    handle = await startInstance(
      deps.temporal,
      { instanceID: id, workflowID: workflow.id, stages: workflow.config.stages ?? [], variables, firstStageStartedAt: startedAt.toISOString() },
      { workflowName: workflow.name, triggerID: options.triggerID },
    );
  } catch (cause) {
    // Stage 0 was recorded as started with the row: it ends with the instance (FAILED_WORKFLOW_STAGE, FAILED_WORKFLOW).
    await recordStageEnded(deps.db, {
      instanceID: id,
      workflowID: workflow.id,
      number: 0,
      at: new Date(),
      error: 'the workflow could not be started',
      endsInstance: true,
    });
    throw new ApiError('SERVICE_UNAVAILABLE', 'the workflow engine is unavailable, retry later', { cause, headers: { 'Retry-After': '1' } });
  }
  if (options.wait) {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise((resolve) => (timer = setTimeout(resolve, RUN_WAIT_LIMIT_MS)));
    // A failed or aborted run is not an error of this call: its `error` is part of the returned instance.
    await Promise.race([handle.result().catch(() => undefined), limit]).finally(() => clearTimeout(timer));
  }
  return getInstance(deps.db, id);
}

/** Throws NOT_FOUND. */
export async function getInstanceRow(db: Executor, id: string): Promise<InstanceRow> {
  const row = isUuid(id) ? await db('orchestration_instances').where({ id }).first() : undefined;
  if (!row) throw notFound(`instance ${id} not found`);
  return row;
}

/** Throws NOT_FOUND. One query: `wait=true` reads the instance back on every run. */
export async function getInstance(db: Executor, id: string): Promise<WorkflowInstance> {
  const rows: Array<InstanceRow & { stage: number | null; stage_started_at: Date; stage_terminated_at: Date | null; stage_error: string | null }> =
    isUuid(id)
      ? await db('orchestration_instances as i')
          .leftJoin('orchestration_stage_statuses as s', 's.instance_id', 'i.id')
          .where('i.id', id)
          .orderBy('s.stage')
          .select('i.*', 's.stage', 's.started_at as stage_started_at', 's.terminated_at as stage_terminated_at', 's.error as stage_error')
      : [];
  if (rows.length === 0) throw notFound(`instance ${id} not found`);
  const stages = rows
    .filter((r) => r.stage !== null)
    .map((r): StageRow => ({
      instance_id: r.id,
      stage: r.stage as number,
      started_at: r.stage_started_at,
      terminated_at: r.stage_terminated_at,
      error: r.stage_error,
    }));
  return present(rows[0], stages);
}

/**
 * Newest first, filtered by workflow and by `running`: true keeps the instances not terminated, false is no filter (as
 * in Formance, whose CLI sends `running=false` when its `--running` flag is not given).
 */
export async function listInstances(db: Executor, list: ListQuery<{ workflowID?: string; running?: boolean }>) {
  const query = db('orchestration_instances');
  if (list.filters.workflowID !== undefined) query.where({ workflow_id: isUuid(list.filters.workflowID) ? list.filters.workflowID : null });
  if (list.filters.running === true) query.where({ terminated: false });
  const page: Page<InstanceRow> = await keysetPage<InstanceRow>(query, ['created_at', 'id'], 'desc', list);
  const ids = page.items.map((r) => r.id);
  const stages: StageRow[] = ids.length ? await db('orchestration_stage_statuses').whereIn('instance_id', ids).orderBy('stage') : [];
  return {
    page,
    present: (row: InstanceRow) =>
      present(
        row,
        stages.filter((s) => s.instance_id === row.id),
      ),
  };
}

/**
 * Delivers an event to a running instance. The workflow keeps events it is not waiting for yet, so an event sent
 * before its wait_event stage starts is not lost. Throws NOT_FOUND, CONFLICT (the instance has ended).
 */
export async function sendEvent(deps: OrchestrationDeps, id: string, name: string): Promise<void> {
  const row = await getInstanceRow(deps.db, id);
  if (row.terminated) throw new ApiError('CONFLICT', `instance ${id} has already terminated`);
  await onRunning(id, () => signalEvent(deps.temporal, id, name));
}

/**
 * Aborts the instance: its abort marker is committed first (markAborted), which no later write of its steps gets past
 * (fence.ts), then its workflow is cancelled; the running stage and the instance end with error "canceled". A step
 * that committed before the marker stays committed (and its stage, if it was the stage's last, ended); an instance
 * whose last step committed first has terminated, and the abort is then a CONFLICT. Throws NOT_FOUND, CONFLICT.
 */
export async function abortInstance(deps: OrchestrationDeps, id: string): Promise<void> {
  if (!isUuid(id)) throw notFound(`instance ${id} not found`);
  if (!(await markAborted(deps.db, id))) throw new ApiError('CONFLICT', `instance ${id} has already terminated`);
  await onRunning(id, () => cancelInstance(deps.temporal, id));
}

async function onRunning(id: string, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    // The read model lags the workflow by one activity: a run that just closed answers NotFound here.
    if (error instanceof InstanceNotRunning) throw new ApiError('CONFLICT', `instance ${id} has already terminated`);
    throw error;
  }
}
