import { isGrpcServiceError, ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../../lib/search-attributes';
import type { TemporalDeps } from '../../lib/temporal';
import type { reconciliationRuleRun } from '../../workflows/reconciliation/rule-run';

/**
 * Every Temporal call of the reconciliation area. A cron rule is one Temporal Schedule, `reconciliation-rule-<ruleID>`:
 * visible, pausable and triggerable in the Web UI, each action a `reconciliationRuleRun` workflow that evaluates the
 * rule once. A disabled rule's schedule is paused (its note says why), a deleted rule's schedule is deleted.
 */
export const ruleScheduleId = (ruleID: string): string => `reconciliation-rule-${ruleID}`;

export interface RuleScheduleSpec {
  ruleID: string;
  name: string;
  cron: string;
  /** IANA time zone the cron is read in (UTC when absent). */
  tz?: string;
  enabled: boolean;
}

/** Temporal refused the schedule's spec (a cron it cannot parse, an unknown time zone): the caller's input is wrong. */
export class InvalidScheduleSpec extends Error {}

function isInvalidArgument(error: unknown): boolean {
  // The client refuses a spec the server answered INVALID_ARGUMENT to as a TypeError ("CronString does not have 5-7 fields").
  if (error instanceof TypeError) return true;
  for (let cause: unknown = error; cause; cause = (cause as { cause?: unknown }).cause) {
    if (isGrpcServiceError(cause) && cause.code === 3) return true;
  }
  return false;
}

const note = (spec: RuleScheduleSpec) => (spec.enabled ? `Evaluates rule "${spec.name}"` : `Rule "${spec.name}" is disabled`);

function scheduleSpec(spec: RuleScheduleSpec) {
  return { cronExpressions: [spec.cron], ...(spec.tz ? { timezone: spec.tz } : {}) };
}

function action(temporal: TemporalDeps, spec: RuleScheduleSpec) {
  return {
    type: 'startWorkflow' as const,
    workflowType: 'reconciliationRuleRun',
    workflowId: ruleScheduleId(spec.ruleID),
    taskQueue: temporal.taskQueue,
    args: [{ ruleID: spec.ruleID }] as [{ ruleID: string }],
    typedSearchAttributes: [{ key: SEARCH_ATTRIBUTES.PlatformArea, value: 'reconciliation' }],
    // A stuck run must not hold the schedule: the next tick after this starts afresh.
    workflowExecutionTimeout: '15m',
    staticSummary: `Evaluate reconciliation rule "${spec.name}"`,
    staticDetails: `Rule id (API): \`${spec.ruleID}\``,
  };
}

/** Creates the rule's schedule (paused when the rule is disabled). Throws InvalidScheduleSpec. */
export async function createRuleSchedule(temporal: TemporalDeps, spec: RuleScheduleSpec): Promise<void> {
  try {
    await temporal.client.schedule.create<typeof reconciliationRuleRun>({
      scheduleId: ruleScheduleId(spec.ruleID),
      spec: scheduleSpec(spec),
      action: action(temporal, spec),
      // A run still going when the next is due makes that tick skip: evaluations of one rule never overlap.
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1m' },
      memo: { ruleID: spec.ruleID },
      typedSearchAttributes: [{ key: SEARCH_ATTRIBUTES.PlatformArea, value: 'reconciliation' }],
      state: { paused: !spec.enabled, note: note(spec) },
    });
  } catch (error) {
    if (error instanceof ScheduleAlreadyRunning) return updateRuleSchedule(temporal, spec);
    if (isInvalidArgument(error)) throw new InvalidScheduleSpec((error as Error).message);
    throw error;
  }
}

/** Sets the schedule's cron, time zone, action and paused state to the rule's. Throws InvalidScheduleSpec. */
export async function updateRuleSchedule(temporal: TemporalDeps, spec: RuleScheduleSpec): Promise<void> {
  try {
    await temporal.client.schedule.getHandle(ruleScheduleId(spec.ruleID)).update((previous) => ({
      ...previous,
      spec: scheduleSpec(spec),
      action: action(temporal, spec),
      state: { ...previous.state, paused: !spec.enabled, note: note(spec) },
    }));
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return createRuleSchedule(temporal, spec);
    if (isInvalidArgument(error)) throw new InvalidScheduleSpec((error as Error).message);
    throw error;
  }
}

/** Deletes the rule's schedule; one already gone is fine. A run already started finishes on its own. */
export async function deleteRuleSchedule(temporal: TemporalDeps, ruleID: string): Promise<void> {
  try {
    await temporal.client.schedule.getHandle(ruleScheduleId(ruleID)).delete();
  } catch (error) {
    if (!(error instanceof ScheduleNotFoundError)) throw error;
  }
}
