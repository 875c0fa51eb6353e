import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '../events';
import { parseJson, stringifyJson } from '../../lib/json';
import type { ListQuery } from '../../db/pagination';
import { inTransaction } from '../../db/errors';
import type { Executor } from '../../db/knex';
import { emitEvents } from '../../db/outbox';
import { keysetPage, type Page } from '../../db/pagination';
import { evaluateFilter, evaluateVariable } from './expressions';
import { runWorkflow, type OrchestrationDeps } from './instances';
import { getTriggerRow, type TriggerRow } from './triggers';

export interface OccurrenceRow {
  id: string;
  trigger_id: string;
  event_id: string;
  workflow_instance_id: string | null;
  event: unknown;
  error: string | null;
  date: Date;
}

export const presentOccurrence = (row: OccurrenceRow) => ({
  id: row.id,
  triggerID: row.trigger_id,
  ...(row.workflow_instance_id ? { workflowInstanceID: row.workflow_instance_id } : {}),
  date: row.date,
  event: row.event,
  ...(row.error ? { error: row.error } : {}),
});

/** Newest first. Throws NOT_FOUND (trigger). */
export async function listOccurrences(db: Executor, triggerID: string, list: ListQuery): Promise<Page<OccurrenceRow>> {
  await getTriggerRow(db, triggerID);
  return keysetPage<OccurrenceRow>(db('orchestration_trigger_occurrences').where({ trigger_id: triggerID }), ['date', 'id'], 'desc', list);
}

/**
 * The trigger step of the per-event workflow: every live trigger on the event's type whose filter matches gets one
 * occurrence, which either starts an instance with the evaluated vars or records the evaluation error. Idempotent per
 * (trigger, event): the occurrence row, with the instance id chosen up front, is committed before the instance
 * starts, so a retried activity finishes the same start instead of making a second one.
 * @returns the occurrences of this event (new or already recorded).
 */
/**
 * How far a trigger follows its own effects. An event written by an instance's step carries the chain of instances
 * that caused it (EventEnvelope.causation): a trigger fires on an event whose chain holds fewer than
 * TRIGGER_MAX_SELF_DEPTH instances it started (1: never on its own descendants, whether its instance wrote the event
 * or another trigger's instance started down the chain did), and no trigger fires on an event whose chain already holds
 * TRIGGER_MAX_CHAIN_DEPTH triggered instances. A trigger on committed transactions whose workflow commits on the same
 * ledger thus runs once per transaction from outside, not forever. A match that is not fired is recorded as an
 * occurrence with the reason as its error and no instance (and FAILED_TRIGGER), so it shows in the occurrence list.
 */
export const TRIGGER_MAX_SELF_DEPTH = 1;
export const TRIGGER_MAX_CHAIN_DEPTH = 8;

/** Why `trigger` must not fire on `event`, if it must not. */
function causationLimit(trigger: TriggerRow, event: EventEnvelope): string | undefined {
  const chain = event.causation?.chain ?? [];
  const own = chain.filter((link) => link.triggerID === trigger.id);
  if (own.length >= TRIGGER_MAX_SELF_DEPTH) {
    return `not fired: the event descends from instance ${own[own.length - 1].instanceID}, started by this trigger (self-causation depth ${own.length}, limit ${TRIGGER_MAX_SELF_DEPTH})`;
  }
  const triggered = chain.filter((link) => link.triggerID !== undefined).length;
  if (triggered >= TRIGGER_MAX_CHAIN_DEPTH)
    return `not fired: the event's causation chain holds ${triggered} triggered instances (limit ${TRIGGER_MAX_CHAIN_DEPTH})`;
  return undefined;
}

export async function matchTriggers(deps: OrchestrationDeps, event: EventEnvelope): Promise<OccurrenceRow[]> {
  // Orchestration's own events never trigger: a trigger on STARTED_WORKFLOW would otherwise start itself forever.
  if (event.app === 'orchestration') return [];
  const triggers: TriggerRow[] = await deps.db('orchestration_triggers').where({ event: event.type }).whereNull('deleted_at');
  if (triggers.length === 0) return [];
  const payload = parseJson(event.payload);
  const occurrences: OccurrenceRow[] = [];
  for (const trigger of triggers) {
    const filter = trigger.filter ? evaluateFilter(trigger.filter, payload) : undefined;
    // A filter over the cost limit on this event was not run: that is recorded on the occurrence (FAILED_TRIGGER),
    // once, rather than read as "no match" or retried (it would be over the limit again on the same event).
    if (filter && !filter.match && !filter.overLimit) continue;
    const variables: Record<string, string> = {};
    // An over-limit filter is the first failure to report; otherwise a match may still be refused by causation.
    let error = filter?.overLimit ? `filter: ${filter.error}` : causationLimit(trigger, event);
    for (const [name, source] of error === undefined ? Object.entries(trigger.vars ?? {}) : []) {
      const result = evaluateVariable(source, payload);
      if (result.error !== undefined) {
        error = `variable ${name}: ${result.error}`;
        break;
      }
      variables[name] = result.value ?? '';
    }
    const occurrence = await claimOccurrence(deps, trigger, event, error);
    if (occurrence.workflow_instance_id && !(await deps.db('orchestration_instances').where({ id: occurrence.workflow_instance_id }).first('id'))) {
      await runWorkflow(deps, trigger.workflow_id, variables, {
        triggerID: trigger.id,
        instanceID: occurrence.workflow_instance_id,
        causation: event.causation?.chain ?? [],
      });
    }
    occurrences.push(occurrence);
  }
  return occurrences;
}

async function claimOccurrence(
  deps: OrchestrationDeps,
  trigger: TriggerRow,
  event: EventEnvelope,
  error: string | undefined,
): Promise<OccurrenceRow> {
  return inTransaction(deps.db, async (trx) => {
    const id = randomUUID();
    const instanceID = error === undefined ? randomUUID() : null;
    const [inserted] = await trx('orchestration_trigger_occurrences')
      .insert({
        id,
        trigger_id: trigger.id,
        event_id: event.id,
        workflow_instance_id: instanceID,
        event: stringifyJson(envelopeOf(event)),
        error: error ?? null,
      })
      .onConflict(['trigger_id', 'event_id'])
      .ignore()
      .returning('*');
    if (!inserted) return trx('orchestration_trigger_occurrences').where({ trigger_id: trigger.id, event_id: event.id }).first();
    await emitEvents(trx, [
      error === undefined
        ? { app: 'orchestration', type: 'SUCCEEDED_TRIGGER', payload: { id, triggerID: trigger.id, workflowInstanceID: instanceID } }
        : { app: 'orchestration', type: 'FAILED_TRIGGER', payload: { id, triggerID: trigger.id, error } },
    ]);
    return inserted;
  });
}

const envelopeOf = (event: EventEnvelope) => ({
  date: event.date,
  app: event.app,
  version: event.version,
  type: event.type,
  payload: parseJson(event.payload),
  ...(event.causation ? { causation: event.causation } : {}),
});
