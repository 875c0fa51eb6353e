import { randomUUID } from 'node:crypto';
import { notFound, validationError } from '../../lib/errors';
import { stringifyJson } from '../../lib/json';
import type { ListQuery } from '../../db/pagination';
import type { Executor } from '../../db/knex';
import { keysetPage, type Page } from '../../db/pagination';
import { checkExpression, evaluateFilter, evaluateVariable } from './expressions';
import { getWorkflowRow, isUuid } from './workflows';

export interface TriggerInput {
  event?: string;
  workflowID?: string;
  filter?: string;
  vars?: Record<string, string>;
  name?: string;
}

export interface Trigger {
  id: string;
  name: string;
  event: string;
  workflowID: string;
  filter?: string;
  vars?: Record<string, string>;
  createdAt: Date;
}

export interface TriggerRow {
  id: string;
  workflow_id: string;
  name: string;
  event: string;
  filter: string | null;
  vars: Record<string, string> | null;
  created_at: Date;
}

export const presentTrigger = (row: TriggerRow): Trigger => ({
  id: row.id,
  name: row.name,
  event: row.event,
  workflowID: row.workflow_id,
  ...(row.filter ? { filter: row.filter } : {}),
  ...(row.vars ? { vars: row.vars } : {}),
  createdAt: row.created_at,
});

function assertExpression(source: string, field: string, event: string, kind: 'filter' | 'variable'): void {
  const reason = checkExpression(source, event, kind);
  if (reason !== undefined) throw validationError(`${field}: error compiling expression '${source}': ${reason}`, { field });
}

/**
 * Op 15. Checks in Formance's order: event, workflowID, every expression compiles, the workflow exists. Compiling
 * includes checking the expression against the event's payload (checkExpression), so one that could only fail on
 * every event is refused here.
 * Throws VALIDATION, NOT_FOUND (workflow).
 */
export async function createTrigger(db: Executor, input: TriggerInput): Promise<Trigger> {
  if (!input.event) throw validationError('event: missing event');
  if (!input.workflowID) throw validationError('workflowID: missing workflow id');
  if (input.filter) assertExpression(input.filter, 'filter', input.event, 'filter');
  for (const [name, source] of Object.entries(input.vars ?? {})) assertExpression(source, `vars.${name}`, input.event, 'variable');
  await getWorkflowRow(db, input.workflowID);
  const [row] = await db('orchestration_triggers')
    .insert({
      id: randomUUID(),
      workflow_id: input.workflowID,
      name: input.name ?? '',
      event: input.event,
      filter: input.filter || null,
      vars: input.vars ? stringifyJson(input.vars) : null,
    })
    .returning('*');
  return presentTrigger(row);
}

/** Throws NOT_FOUND (unknown or deleted). */
export async function getTriggerRow(db: Executor, id: string): Promise<TriggerRow> {
  const row = isUuid(id) ? await db('orchestration_triggers').where({ id }).whereNull('deleted_at').first() : undefined;
  if (!row) throw notFound(`trigger ${id} not found`);
  return row;
}

export async function listTriggers(db: Executor, list: ListQuery<{ name?: string }>): Promise<Page<TriggerRow>> {
  const query = db('orchestration_triggers').whereNull('deleted_at');
  if (list.filters.name) query.whereILike('name', `%${list.filters.name.replace(/[\\%_]/g, '\\$&')}%`);
  return keysetPage<TriggerRow>(query, ['created_at', 'id'], 'desc', list);
}

/** Soft delete: occurrences stay readable. Throws NOT_FOUND. */
export async function deleteTrigger(db: Executor, id: string): Promise<void> {
  const count = isUuid(id) ? await db('orchestration_triggers').where({ id }).whereNull('deleted_at').update({ deleted_at: db.fn.now() }) : 0;
  if (count === 0) throw notFound(`trigger ${id} not found`);
}

/**
 * Evaluates a trigger against a sample payload without starting anything: the filter (null when there is none) and,
 * when there is no filter or it matched, each variable. An expression whose estimated cost on this payload is over
 * the limit is not run: the payload is refused, naming the expression. Throws NOT_FOUND, VALIDATION.
 */
export async function testTrigger(db: Executor, id: string, payload: unknown) {
  const trigger = await getTriggerRow(db, id);
  const filter = trigger.filter ? evaluateFilter(trigger.filter, payload) : null;
  if (filter?.overLimit) throw validationError(`filter: ${filter.error}`, { field: 'filter' });
  const variables =
    trigger.vars && (!filter || filter.match)
      ? Object.fromEntries(
          Object.entries(trigger.vars).map(([name, source]) => {
            const { overLimit, ...result } = evaluateVariable(source, payload);
            if (overLimit) throw validationError(`vars.${name}: ${result.error}`, { field: `vars.${name}` });
            return [name, result];
          }),
        )
      : null;
  return { filter, variables };
}
