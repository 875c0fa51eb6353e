import type { Payload } from '@temporalio/common';
import { optionalTsToDate, tsToDate } from '@temporalio/common/lib/time';
import { notFound } from '../../lib/errors';
import { payloadConverter } from '../../lib/temporal-payload-converter';
import type { StepResult } from '../../lib/orchestration/steps';
import { describeStage } from '../../lib/orchestration/config';
import type { InstanceInput } from '../../workflows/orchestration/instance';
import { instanceHistory, pendingActivities, type HistoryEvent } from './engine';
import { getInstanceRow, type OrchestrationDeps } from './instances';

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
  return instanceHistory(deps.temporal, id);
}

type StageMark = { kind: 'start' | 'end'; number: number; name?: string; input?: unknown; at: string; error?: string };

/** The local activities that record a stage's start or end themselves (the other marks come with the run's input or a step). */
const MARK_ACTIVITIES: Record<string, StageMark['kind']> = { orchestrationStageStarted: 'start', orchestrationStageEnded: 'end' };

/** A local activity's marker: its type, attempt and schedule time (core's marker data), and its result if it succeeded. */
interface LocalActivity {
  type: string;
  attempt: number;
  scheduledAt?: Date;
  result?: unknown;
}

function localActivityOf(event: HistoryEvent): LocalActivity | undefined {
  const marker = event.markerRecordedEventAttributes;
  if (marker?.markerName !== 'core_local_activity') return undefined;
  const meta = decode(marker.details?.data?.payloads) as
    { activity_type?: string; attempt?: number; original_schedule_time?: { seconds: number; nanos: number } } | undefined;
  const scheduled = meta?.original_schedule_time;
  return {
    type: meta?.activity_type ?? '',
    attempt: meta?.attempt ?? 1,
    ...(scheduled ? { scheduledAt: new Date(scheduled.seconds * 1000 + Math.floor(scheduled.nanos / 1e6)) } : {}),
    result: decode(marker.details?.result?.payloads),
  };
}

/** A step's local attempt that succeeded (a failed one has no result: the step's regular activity follows it). */
function localStepOf(local: LocalActivity): StepResult<unknown> | undefined {
  return local.type in MARK_ACTIVITIES ? undefined : (local.result as StepResult<unknown> | undefined);
}

/**
 * The stage start or end an event records (see orchestrationInstance): stage 0's start in the workflow's input,
 * recorded by the API; a stage's end carried by its last step (`ended` in its result, local or regular); any other
 * mark in the result of a local orchestrationStageStarted/Ended.
 */
function stageMarkOf(event: HistoryEvent): StageMark | undefined {
  const local = localActivityOf(event);
  if (local) {
    const kind = MARK_ACTIVITIES[local.type];
    if (kind) return local.result ? { ...(local.result as Omit<StageMark, 'kind'>), kind } : undefined;
    const ended = localStepOf(local)?.ended;
    return ended ? { kind: 'end', ...ended } : undefined;
  }
  const completed = event.activityTaskCompletedEventAttributes;
  if (completed) {
    const ended = (decode(completed.result?.payloads) as StepResult<unknown> | undefined)?.ended;
    return ended ? { kind: 'end', ...ended } : undefined;
  }
  const started = event.workflowExecutionStartedEventAttributes;
  const input = started ? (decode(started.input?.payloads) as InstanceInput | undefined) : undefined;
  if (!input?.stages?.[0]) return undefined;
  const { name, input: stageInput } = describeStage(input.stages[0], 0, input.variables ?? {});
  // Through the payload converter, as every other mark: the same JSON shape (big integers) as a recorded input.
  return {
    kind: 'start',
    number: 0,
    name,
    input: payloadConverter.fromPayload(payloadConverter.toPayload(stageInput)),
    at: input.firstStageStartedAt,
  };
}

/**
 * Op 13, from Temporal's history: each stage from its start mark (its name and resolved input) to its end mark (its
 * error). A run terminated from outside (Web UI, CLI) closes its open stage with "terminated". Throws NOT_FOUND.
 */
export async function readInstanceHistory(deps: OrchestrationDeps, id: string): Promise<InstanceHistoryEntry[]> {
  return instanceHistoryOf(await instanceEvents(deps, id));
}

/** Op 13's stages from an instance workflow's events. */
export function instanceHistoryOf(events: HistoryEvent[]): InstanceHistoryEntry[] {
  return [...stagesOf(events).entries()].sort(([a], [b]) => a - b).map(([, entry]) => entry);
}

/**
 * The stages by number, their times in causal order: the marks come from several clocks (the API's for stage 0's
 * start, the workflow task's, the worker's for an end written by a step), and runs recorded before the read model
 * kept them in order (see recordStageStarted) can show a stage starting before the previous one ended, or ending
 * before it started. A time out of order is moved to the bound it crosses: start >= the previous stage's end,
 * end >= start.
 */
function stagesOf(events: HistoryEvent[]): Map<number, InstanceHistoryEntry> {
  const entries = new Map<number, InstanceHistoryEntry>();
  for (const event of events) {
    const mark = stageMarkOf(event);
    if (mark) addMark(entries, mark);
    if (event.workflowExecutionTerminatedEventAttributes || event.workflowExecutionTimedOutEventAttributes) {
      for (const entry of entries.values()) {
        if (!entry.terminated) Object.assign(entry, { terminated: true, terminatedAt: eventTime(event), error: 'terminated' });
      }
    }
  }
  let previousEnd: Date | undefined;
  for (const [, entry] of [...entries.entries()].sort(([a], [b]) => a - b)) {
    entry.startedAt = latest(entry.startedAt, previousEnd);
    if (entry.terminatedAt) entry.terminatedAt = latest(entry.terminatedAt, entry.startedAt);
    previousEnd = entry.terminatedAt ?? entry.startedAt;
  }
  return entries;
}

const latest = (time: Date, bound: Date | undefined): Date => (bound && bound.getTime() > time.getTime() ? bound : time);
const earliest = (time: Date, bound: Date | undefined): Date => (bound && bound.getTime() < time.getTime() ? bound : time);

function addMark(entries: Map<number, InstanceHistoryEntry>, mark: StageMark): void {
  if (mark.kind === 'start') {
    entries.set(mark.number, { name: mark.name ?? '', input: mark.input ?? {}, terminated: false, startedAt: new Date(mark.at) });
  } else {
    const entry = entries.get(mark.number);
    // A stage ends once; should a second end mark ever appear, it must not move the first.
    if (entry && !entry.terminated)
      Object.assign(entry, { terminated: true, terminatedAt: new Date(mark.at), ...(mark.error ? { error: mark.error } : {}) });
  }
}

/**
 * Op 14: the steps `s<N>-<k>-<Name>` of stage N in history order: a local attempt from its marker (its result repeats
 * the step's id and input), a regular activity matched with its outcome by scheduledEventId. The history records an
 * activity's attempts only when it closes, so a pending one's attempt, last failure and next retry time come from
 * DescribeWorkflowExecution. Throws NOT_FOUND (instance, or a stage that has not started).
 */
export async function readStageHistory(deps: OrchestrationDeps, id: string, number: number): Promise<StageHistoryEntry[]> {
  const steps = stageSteps(await instanceEvents(deps, id), number);
  if (!steps) throw notFound(`stage ${number} of instance ${id} not found`);
  await addPendingState(deps, id, steps.byActivityId);
  return steps.entries;
}

/** Op 14 from an instance workflow's events, without a pending activity's retry state; undefined: no such stage. */
export function stageHistoryOf(events: HistoryEvent[], number: number): StageHistoryEntry[] | undefined {
  return stageSteps(events, number)?.entries;
}

function stageSteps(events: HistoryEvent[], number: number) {
  const stage = stagesOf(events).get(number);
  if (!stage) return undefined;
  const { entries, byActivityId } = stageStepsOf(events, number);
  return { entries: inStage(entries, stage), byActivityId };
}

/**
 * The steps' times in causal order (see stagesOf): within their stage (op 13's times for it), each starting no
 * earlier than the one before it ended, each ending no earlier than it started.
 */
function inStage(entries: StageHistoryEntry[], stage: InstanceHistoryEntry): StageHistoryEntry[] {
  let previousEnd = stage.startedAt;
  for (const entry of entries) {
    entry.startedAt = earliest(latest(entry.startedAt, previousEnd), stage.terminatedAt);
    if (entry.terminatedAt) entry.terminatedAt = earliest(latest(entry.terminatedAt, entry.startedAt), stage.terminatedAt);
    previousEnd = entry.terminatedAt ?? entry.startedAt;
  }
  return entries;
}

/** Op 14's steps of stage `number`, from the instance's events, and the regular activities among them by id. */
function stageStepsOf(events: HistoryEvent[], number: number) {
  const prefix = new RegExp(`^s${number}-\\d+-`);
  const byScheduledId = new Map<string, StageHistoryEntry>();
  const byActivityId = new Map<string, StageHistoryEntry>();
  const entries: StageHistoryEntry[] = [];
  for (const event of events) {
    const local = localActivityOf(event);
    const step = local && localStepOf(local);
    if (local && step && prefix.test(step.id)) {
      const name = local.type;
      entries.push({
        name,
        input: { [name]: step.input },
        ...(step.output !== undefined && step.output !== null ? { output: { [name]: step.output } } : {}),
        terminated: true,
        // The step's own clock when its result has it: the marker is recorded when the workflow task completes, after
        // the step ended (and after the stage end the step wrote).
        startedAt: step.startedAt ? new Date(step.startedAt) : (local.scheduledAt ?? eventTime(event)),
        terminatedAt: step.finishedAt ? new Date(step.finishedAt) : eventTime(event),
        attempt: local.attempt,
      });
      continue;
    }
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityId && prefix.test(scheduled.activityId)) {
      const name = scheduled.activityType?.name ?? '';
      // decode reads the first argument, the step's input (the second is its StepOptions).
      const entry: StageHistoryEntry = {
        name,
        input: { [name]: decode(scheduled.input?.payloads) },
        terminated: false,
        startedAt: eventTime(event),
        attempt: 1,
      };
      entries.push(entry);
      byScheduledId.set(String(event.eventId), entry);
      byActivityId.set(scheduled.activityId, entry);
      continue;
    }
    const attrs =
      event.activityTaskStartedEventAttributes ??
      event.activityTaskCompletedEventAttributes ??
      event.activityTaskFailedEventAttributes ??
      event.activityTaskTimedOutEventAttributes ??
      event.activityTaskCanceledEventAttributes;
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
      const result = decode(event.activityTaskCompletedEventAttributes.result?.payloads) as StepResult<unknown> | undefined;
      const output = result?.output;
      if (output !== undefined && output !== null) entry.output = { [entry.name]: output };
      // The attempt's end on its own clock (the completion event is recorded after it).
      if (result?.finishedAt) entry.terminatedAt = new Date(result.finishedAt);
    } else if (event.activityTaskFailedEventAttributes) {
      entry.error = event.activityTaskFailedEventAttributes.failure?.message ?? 'failed';
    } else {
      entry.error = event.activityTaskTimedOutEventAttributes ? 'timeout' : 'canceled';
    }
  }
  // A run that closed leaves no activity pending, though its history may not close one: an activity cancelled while
  // it waited for its next retry, or still running, gets no closing event once the run has ended (cancelled run:
  // "canceled"; terminated or timed out: "terminated").
  const closed = events.find(isRunClosed);
  if (closed) {
    for (const entry of entries) {
      if (entry.terminated) continue;
      Object.assign(entry, {
        terminated: true,
        terminatedAt: eventTime(closed),
        error: closed.workflowExecutionCanceledEventAttributes ? 'canceled' : 'terminated',
      });
    }
    byActivityId.clear();
  }
  return { entries, byActivityId };
}

const isRunClosed = (event: HistoryEvent): boolean =>
  Boolean(
    event.workflowExecutionCompletedEventAttributes ??
    event.workflowExecutionFailedEventAttributes ??
    event.workflowExecutionCanceledEventAttributes ??
    event.workflowExecutionTerminatedEventAttributes ??
    event.workflowExecutionTimedOutEventAttributes ??
    event.workflowExecutionContinuedAsNewEventAttributes,
  );

async function addPendingState(deps: OrchestrationDeps, id: string, entries: Map<string, StageHistoryEntry>): Promise<void> {
  if (![...entries.values()].some((e) => !e.terminated)) return;
  for (const pending of await pendingActivities(deps.temporal, id)) {
    const entry = pending.activityId ? entries.get(pending.activityId) : undefined;
    if (!entry || entry.terminated) continue;
    entry.attempt = pending.attempt ?? entry.attempt;
    if (pending.lastFailure?.message) entry.lastFailure = pending.lastFailure.message;
    const next = optionalTsToDate(pending.nextAttemptScheduleTime);
    if (next) entry.nextExecution = next;
  }
}

/**
 * Op 14 as Formance's v1 answers it: a CreateTransaction step's output is one transaction (v1's Transaction: `id`,
 * `reverted`), where v2 answers the list the step returns (`txid`). A step writes one transaction, so the list always
 * holds one; `reverted` is the transaction's state when the step wrote it.
 */
export function v1StageHistory(entries: StageHistoryEntry[]): StageHistoryEntry[] {
  return entries.map((entry) => {
    const created = entry.output?.CreateTransaction as { data?: unknown } | undefined;
    if (!created || !Array.isArray(created.data)) return entry;
    const [first] = created.data as Array<{ txid?: unknown } & Record<string, unknown>>;
    if (!first) return entry;
    const { txid, ...transaction } = first;
    return { ...entry, output: { ...entry.output, CreateTransaction: { ...created, data: { id: txid, ...transaction, reverted: false } } } };
  });
}
