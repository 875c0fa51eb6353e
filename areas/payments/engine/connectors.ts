import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import type { TemporalDeps } from '../../../lib/temporal';
import type { connectorInstall, connectorPoll, connectorReset, connectorUninstall } from '../../../workflows/payments/connector-poll';
import { fetchKindsOf } from '../connectors/connector-catalog';
import {
  connectorTaskId,
  describeConnector,
  details,
  failureMessage,
  scheduleIdOf,
  searchAttributes,
  type ConnectorRef,
  type ConnectorTask,
} from './workflow-ids';

/**
 * Creates the connector's schedules, one per kind of data, each starting a short `connectorPoll` run every polling
 * period; a run still going when the next is due makes that tick skip (overlap SKIP). A schedule that already exists
 * is kept as it is, so the call can be repeated. The first run comes one period later: install and reset fetch first.
 */
export async function createConnectorSchedules(temporal: TemporalDeps, connector: ConnectorRef, pollingPeriodMs: number): Promise<string[]> {
  const ids: string[] = [];
  for (const kind of fetchKindsOf(connector.provider)) {
    const scheduleId = scheduleIdOf(connector, kind);
    try {
      await temporal.client.schedule.create<typeof connectorPoll>({
        scheduleId,
        spec: { intervals: [{ every: pollingPeriodMs }] },
        action: {
          type: 'startWorkflow',
          workflowType: 'connectorPoll',
          workflowId: scheduleId,
          taskQueue: temporal.taskQueue,
          args: [{ connectorID: connector.id, kind }],
          typedSearchAttributes: searchAttributes(connector.id),
          // A stuck run must not hold the schedule forever: the next tick after this starts afresh.
          workflowExecutionTimeout: '15m',
          staticSummary: `Fetch ${kind} of ${describeConnector(connector)}`,
          staticDetails: details(connector),
        },
        policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1m' },
        memo: { connectorID: connector.id, kind },
        typedSearchAttributes: searchAttributes(connector.id),
        state: { note: `Polls ${kind} of ${describeConnector(connector)}` },
      });
    } catch (error) {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    }
    ids.push(scheduleId);
  }
  return ids;
}

/** Deletes the connector's schedules; one already gone is fine. Runs already started finish on their own. */
export async function deleteConnectorSchedules(temporal: TemporalDeps, connector: ConnectorRef): Promise<void> {
  for (const kind of fetchKindsOf(connector.provider)) {
    try {
      await temporal.client.schedule.getHandle(scheduleIdOf(connector, kind)).delete();
    } catch (error) {
      if (!(error instanceof ScheduleNotFoundError)) throw error;
    }
  }
}

/** Sets the interval of every schedule of the connector (after a config update). */
export async function setConnectorPollingPeriod(temporal: TemporalDeps, connector: ConnectorRef, pollingPeriodMs: number): Promise<void> {
  for (const kind of fetchKindsOf(connector.provider)) {
    await temporal.client.schedule
      .getHandle(scheduleIdOf(connector, kind))
      .update((previous) => ({ ...previous, spec: { intervals: [{ every: pollingPeriodMs }] } }));
  }
}

/** What the API shows of a schedule. Temporal keeps no pause time: a paused schedule's last update is its pause. */
export interface ScheduleState {
  scheduleId: string;
  createdAt: Date;
  lastUpdatedAt?: Date;
  paused: boolean;
  note?: string;
  nextRunAt?: Date;
}

/** A schedule's state, or undefined when it does not exist. */
export async function describeSchedule(temporal: TemporalDeps, scheduleId: string): Promise<ScheduleState | undefined> {
  let d;
  try {
    d = await temporal.client.schedule.getHandle(scheduleId).describe();
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return undefined;
    throw error;
  }
  return {
    scheduleId: d.scheduleId,
    createdAt: d.info.createdAt,
    paused: d.state.paused,
    ...(d.info.lastUpdatedAt ? { lastUpdatedAt: d.info.lastUpdatedAt } : {}),
    ...(d.state.note ? { note: d.state.note } : {}),
    ...(d.info.nextActionTimes[0] ? { nextRunAt: d.info.nextActionTimes[0] } : {}),
  };
}

export interface WorkflowRun {
  workflowId: string;
  runId: string;
  status: string;
  startTime: Date;
  closeTime?: Date;
  error?: string;
}

/** The runs a schedule started (Temporal's visibility, so a run shows up within a second or so), at most `limit`. */
export async function listScheduleRuns(temporal: TemporalDeps, scheduleId: string, limit: number): Promise<WorkflowRun[]> {
  const runs: WorkflowRun[] = [];
  for await (const run of temporal.client.workflow.list({ query: `TemporalScheduledById = '${scheduleId}'`, pageSize: 1000 })) {
    runs.push({
      workflowId: run.workflowId,
      runId: run.runId,
      status: run.status.name,
      startTime: run.startTime,
      ...(run.closeTime ? { closeTime: run.closeTime } : {}),
    });
    if (runs.length >= limit) break;
  }
  return runs;
}

/** Why a closed run failed, from its result. */
export async function runFailure(temporal: TemporalDeps, workflowId: string, runId?: string): Promise<string | undefined> {
  try {
    await temporal.client.workflow.getHandle(workflowId, runId).result();
    return undefined;
  } catch (error) {
    return failureMessage(error);
  }
}

const TASK_VERBS: Record<ConnectorTask, string> = { install: 'First fetch of', uninstall: 'Uninstall', reset: 'Reset' };

/**
 * Starts a connector operation that runs on Temporal (install's first fetch, uninstall, reset) and returns its workflow id, the task id the
 * API answers. A second request while one runs joins it; after it closed, a new run reuses the id.
 */
export async function startConnectorTask(temporal: TemporalDeps, connector: ConnectorRef, task: ConnectorTask): Promise<string> {
  const workflowId = connectorTaskId(connector, task);
  const common = {
    taskQueue: temporal.taskQueue,
    workflowId,
    workflowIdConflictPolicy: 'USE_EXISTING' as const,
    args: [{ connectorID: connector.id }] as [{ connectorID: string }],
    typedSearchAttributes: searchAttributes(connector.id),
    staticSummary: `${TASK_VERBS[task]} ${describeConnector(connector)}`,
    staticDetails: details(connector),
  };
  if (task === 'install') await temporal.client.workflow.start<typeof connectorInstall>('connectorInstall', common);
  else if (task === 'uninstall') await temporal.client.workflow.start<typeof connectorUninstall>('connectorUninstall', common);
  else await temporal.client.workflow.start<typeof connectorReset>('connectorReset', common);
  return workflowId;
}
