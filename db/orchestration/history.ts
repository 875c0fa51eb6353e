import { WorkflowNotFoundError } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { optionalTsToDate, tsToDate } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';
import { notFound } from '../../lib/errors';
import { payloadConverter } from '../../lib/temporal-payload-converter';
import { getInstanceRow, type OrchestrationDeps } from './instances';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export interface InstanceHistoryEntry {
  name: string;
  input: unknown;
  error?: string;
  terminated: boolean;
  startedAt: Date;
  terminatedAt?: Date;
}

export interface StageHistoryEntry {
  name: string;
  input: Record<string, unknown>;
  output?: Record<string, unknown>;
  error?: string;
  terminated: boolean;
  startedAt: Date;
  terminatedAt?: Date;
  lastFailure?: string;
  attempt: number;
  nextExecution?: Date;
}

const decode = (payloads: Payload[] | null | undefined): unknown =>
  payloads && payloads.length > 0 ? payloadConverter.fromPayload(payloads[0]) : undefined;
const eventTime = (event: HistoryEvent): Date => tsToDate(event.eventTime!);

/** The instance workflow's history (all pages); empty when the workflow never started. Throws NOT_FOUND. */
async function instanceEvents(deps: OrchestrationDeps, id: string): Promise<HistoryEvent[]> {
  await getInstanceRow(deps.db, id);
  try {
    return (await deps.temporal.client.workflow.getHandle(id).fetchHistory()).events ?? [];
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return [];
    throw error;
  }
}

type StageMark = { kind: 'start' | 'end'; number: number; name?: string; input?: unknown; at: string; error?: string };

const MARK_ACTIVITIES: Record<string, StageMark['kind']> = { orchestrationStageStarted: 'start', orchestrationStageEnded: 'end' };

/**
 * A stage start or end recorded in the history: the result of the local activity in a `core_local_activity` marker
 * (runs started with `bookkeeping: 'local'`), or the input of the regular activity `s<N>-start`/`s<N>-end` (runs
 * of the previous release).
 */
function stageMarkOf(event: HistoryEvent): StageMark | undefined {
  const marker = event.markerRecordedEventAttributes;
  if (marker?.markerName === 'core_local_activity') {
    const meta = decode(marker.details?.data?.payloads) as { activity_type?: string } | undefined;
    const kind = meta?.activity_type ? MARK_ACTIVITIES[meta.activity_type] : undefined;
    const result = decode(marker.details?.result?.payloads) as Omit<StageMark, 'kind'> | undefined;
    return kind && result ? { ...result, kind } : undefined;
  }
  const scheduled = event.activityTaskScheduledEventAttributes;
  const legacy = scheduled?.activityId ? /^s(\d+)-(start|end)$/.exec(scheduled.activityId) : null;
  if (!scheduled || !legacy) return undefined;
  const mark = decode(scheduled.input?.payloads) as Omit<StageMark, 'kind' | 'number'>;
  return { ...mark, number: Number(legacy[1]), kind: legacy[2] as StageMark['kind'] };
}

/**
 * Op 13, from Temporal's history: stage N starts with the mark of orchestrationStageStarted (the stage's name and
 * resolved input) and ends with orchestrationStageEnded's (its error). A run terminated from outside (Web UI, CLI)
 * closes its open stage with "terminated". Throws NOT_FOUND.
 */
export async function readInstanceHistory(deps: OrchestrationDeps, id: string): Promise<InstanceHistoryEntry[]> {
  return instanceHistoryOf(await instanceEvents(deps, id));
}

/** Op 13's stages from an instance workflow's events, of either release. */
export function instanceHistoryOf(events: HistoryEvent[]): InstanceHistoryEntry[] {
  const entries = new Map<number, InstanceHistoryEntry>();
  for (const event of events) {
    const mark = stageMarkOf(event);
    if (mark?.kind === 'start') {
      entries.set(mark.number, { name: mark.name ?? '', input: mark.input ?? {}, terminated: false, startedAt: new Date(mark.at) });
    } else if (mark?.kind === 'end') {
      const entry = entries.get(mark.number);
      if (entry) Object.assign(entry, { terminated: true, terminatedAt: new Date(mark.at), ...(mark.error ? { error: mark.error } : {}) });
    }
    if (event.workflowExecutionTerminatedEventAttributes || event.workflowExecutionTimedOutEventAttributes) {
      for (const entry of entries.values()) {
        if (!entry.terminated) Object.assign(entry, { terminated: true, terminatedAt: eventTime(event), error: 'terminated' });
      }
    }
  }
  return [...entries.entries()].sort(([a], [b]) => a - b).map(([, entry]) => entry);
}

/**
 * Op 14: the activities `s<N>-<k>-<Name>` of stage N, matched with their outcome by scheduledEventId. The history
 * records an activity's attempts only when it closes, so a pending one's attempt, last failure and next retry time
 * come from DescribeWorkflowExecution. Throws NOT_FOUND (instance, or a stage that has not started).
 */
export async function readStageHistory(deps: OrchestrationDeps, id: string, number: number): Promise<StageHistoryEntry[]> {
  const events = await instanceEvents(deps, id);
  const started = events.some((e) => {
    const mark = stageMarkOf(e);
    return mark?.kind === 'start' && mark.number === number;
  });
  if (!started) throw notFound(`stage ${number} of instance ${id} not found`);
  const prefix = new RegExp(`^s${number}-\\d+-`);
  const byScheduledId = new Map<string, StageHistoryEntry>();
  const byActivityId = new Map<string, StageHistoryEntry>();
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityId && prefix.test(scheduled.activityId)) {
      const name = scheduled.activityType?.name ?? '';
      const entry: StageHistoryEntry = { name, input: { [name]: decode(scheduled.input?.payloads) }, terminated: false, startedAt: eventTime(event), attempt: 1 };
      byScheduledId.set(String(event.eventId), entry);
      byActivityId.set(scheduled.activityId, entry);
      continue;
    }
    const attrs =
      event.activityTaskStartedEventAttributes ?? event.activityTaskCompletedEventAttributes ?? event.activityTaskFailedEventAttributes ??
      event.activityTaskTimedOutEventAttributes ?? event.activityTaskCanceledEventAttributes;
    const entry = attrs ? byScheduledId.get(String(attrs.scheduledEventId)) : undefined;
    if (!entry) continue;
    if (event.activityTaskStartedEventAttributes) {
      const a = event.activityTaskStartedEventAttributes;
      entry.attempt = a.attempt ?? entry.attempt;
      if (a.lastFailure?.message) entry.lastFailure = a.lastFailure.message;
      continue;
    }
    entry.terminated = true;
    entry.terminatedAt = eventTime(event);
    if (event.activityTaskCompletedEventAttributes) {
      const output = decode(event.activityTaskCompletedEventAttributes.result?.payloads);
      if (output !== undefined) entry.output = { [entry.name]: output };
    } else if (event.activityTaskFailedEventAttributes) {
      entry.error = event.activityTaskFailedEventAttributes.failure?.message ?? 'failed';
    } else {
      entry.error = event.activityTaskTimedOutEventAttributes ? 'timeout' : 'canceled';
    }
  }
  await addPendingState(deps, id, byActivityId);
  return [...byScheduledId.values()];
}

async function addPendingState(deps: OrchestrationDeps, id: string, entries: Map<string, StageHistoryEntry>): Promise<void> {
  if (![...entries.values()].some((e) => !e.terminated)) return;
  const { raw } = await deps.temporal.client.workflow.getHandle(id).describe();
  for (const pending of raw.pendingActivities ?? []) {
    const entry = pending.activityId ? entries.get(pending.activityId) : undefined;
    if (!entry || entry.terminated) continue;
    entry.attempt = pending.attempt ?? entry.attempt;
    if (pending.lastFailure?.message) entry.lastFailure = pending.lastFailure.message;
    const next = optionalTsToDate(pending.nextAttemptScheduleTime);
    if (next) entry.nextExecution = next;
  }
}
