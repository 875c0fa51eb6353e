import { randomUUID } from 'node:crypto';
import { ApiError, notFound } from '../../lib/errors';
import { stringifyJson } from '../../lib/json';
import { ConfigError, validateConfig, type WorkflowConfig } from '../../lib/orchestration/config';
import type { ListQuery } from '../../db/pagination';
import type { Executor } from '../../db/knex';
import { keysetPage, type Page } from '../../db/pagination';

export interface Workflow {
  id: string;
  config: WorkflowConfig;
  createdAt: Date;
  updatedAt: Date;
}

export interface WorkflowRow {
  id: string;
  name: string;
  config: WorkflowConfig;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export const presentWorkflow = (row: WorkflowRow): Workflow => ({
  id: row.id,
  config: row.config,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (id: string): boolean => UUID.test(id);

/**
 * Stores a workflow definition after validating the whole config, every stage and field, so a mistake is a 400
 * naming `stages[i].<type>.<field>` now rather than a failed stage at run time. Throws VALIDATION.
 */
export async function createWorkflow(db: Executor, input: unknown): Promise<Workflow> {
  let config: WorkflowConfig;
  try {
    config = validateConfig(input);
  } catch (error) {
    if (error instanceof ConfigError) throw new ApiError('VALIDATION', error.message, { details: { field: error.path } });
    throw error;
  }
  const [row] = await db('orchestration_workflows')
    .insert({ id: randomUUID(), name: config.name ?? '', config: stringifyJson(config) })
    .returning('*');
  return presentWorkflow(row);
}

/** A workflow that is not deleted. Throws NOT_FOUND. */
export async function getWorkflowRow(db: Executor, id: string): Promise<WorkflowRow> {
  const row = isUuid(id) ? await db('orchestration_workflows').where({ id }).whereNull('deleted_at').first() : undefined;
  if (!row) throw notFound(`workflow ${id} not found`);
  return row;
}

/** Throws NOT_FOUND. */
export async function getWorkflow(db: Executor, id: string): Promise<Workflow> {
  return presentWorkflow(await getWorkflowRow(db, id));
}

/** Newest first; deleted workflows are left out. */
export async function listWorkflows(db: Executor, list: ListQuery): Promise<Page<WorkflowRow>> {
  return keysetPage<WorkflowRow>(db('orchestration_workflows').whereNull('deleted_at'), ['created_at', 'id'], 'desc', list);
}

/** Soft delete: running instances keep their config (it travels in the Temporal workflow's input). Throws NOT_FOUND. */
export async function deleteWorkflow(db: Executor, id: string): Promise<void> {
  const count = isUuid(id) ? await db('orchestration_workflows').where({ id }).whereNull('deleted_at').update({ deleted_at: db.fn.now() }) : 0;
  if (count === 0) throw notFound(`workflow ${id} not found`);
}
