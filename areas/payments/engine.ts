import {
  ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError,
} from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../../lib/search-attributes';
import type { TemporalDeps } from '../../lib/temporal';
import type { bankAccountForward } from '../../workflows/payments/bank-account-forward';
import type { connectorInstall, connectorPoll, connectorReset, connectorUninstall } from '../../workflows/payments/connector-poll';
import type { paymentInitiationExecute } from '../../workflows/payments/payment-initiation';
import type { paymentInitiationReverse } from '../../workflows/payments/payment-initiation-reverse';
import type { paymentServiceUserDelete } from '../../workflows/payments/psu-delete';
import type {
  openBankingCompleteLink, openBankingDeleteConnection, openBankingDeletePsuConnector, paymentServiceUserForward,
} from '../../workflows/payments/open-banking';
import { fetchKindsOf, type FetchKind } from './connector-catalog';
import { connectorLabel } from './ids';

/**
 * Every Temporal call of the payments area. Ids are deterministic and readable: a connector's schedules, their runs
 * and its tasks start with `connector-<provider>-<name>-<short reference>`, an initiation's run is
 * `payment-initiation-<id>-<attempt>`; each carries a static summary for the Temporal UI and the search attributes
 * PlatformArea = "payments" and ConnectorID (the wire id).
 */
export interface ConnectorRef { id: string; provider: string; name: string }

export const scheduleIdOf = (connector: ConnectorRef, kind: FetchKind): string => `${connectorLabel(connector)}-${kind}`;
export const initiationWorkflowId = (id: string, attempt: number): string => `payment-initiation-${id}-${attempt}`;
export const reversalWorkflowId = (id: string, number: number): string => `payment-initiation-${id}-reversal-${number}`;
export const forwardWorkflowId = (bankAccountID: string, connectorID: string): string => `bank-account-${bankAccountID}-forward-${connectorID}`;
/** The id of the workflow (also its task id) that each long-running connector operation runs as. */
export type ConnectorTask = 'install' | 'uninstall' | 'reset';
export const connectorTaskId = (connector: ConnectorRef, task: ConnectorTask): string => `${connectorLabel(connector)}-${task}`;
/** The single fetch workflow of the first releases, replaced by schedules; see migrateLegacyFetch. */
const legacyFetchWorkflowId = (connectorID: string): string => `connector-${connectorID}-fetch`;

const searchAttributes = (connectorID: string) => [
  { key: SEARCH_ATTRIBUTES.PlatformArea, value: 'payments' },
  { key: SEARCH_ATTRIBUTES.ConnectorID, value: connectorID },
];
const describeConnector = (c: ConnectorRef): string => `connector "${c.name}" (${c.provider})`;
const details = (c: ConnectorRef): string => `Connector id (API): \`${c.id}\``;

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
          type: 'startWorkflow', workflowType: 'connectorPoll', workflowId: scheduleId, taskQueue: temporal.taskQueue,
          args: [{ connectorID: connector.id, kind }], typedSearchAttributes: searchAttributes(connector.id),
          // A stuck run must not hold the schedule forever: the next tick after this starts afresh.
          workflowExecutionTimeout: '15m',
          staticSummary: `Fetch ${kind} of ${describeConnector(connector)}`, staticDetails: details(connector),
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
    await temporal.client.schedule.getHandle(scheduleIdOf(connector, kind)).update((previous) => ({ ...previous, spec: { intervals: [{ every: pollingPeriodMs }] } }));
  }
}

/** What the API shows of a schedule. Temporal keeps no pause time: a paused schedule's last update is its pause. */
export interface ScheduleState { scheduleId: string; createdAt: Date; lastUpdatedAt?: Date; paused: boolean; note?: string; nextRunAt?: Date }

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
    scheduleId: d.scheduleId, createdAt: d.info.createdAt, paused: d.state.paused,
    ...(d.info.lastUpdatedAt ? { lastUpdatedAt: d.info.lastUpdatedAt } : {}), ...(d.state.note ? { note: d.state.note } : {}),
    ...(d.info.nextActionTimes[0] ? { nextRunAt: d.info.nextActionTimes[0] } : {}),
  };
}

export interface WorkflowRun { workflowId: string; runId: string; status: string; startTime: Date; closeTime?: Date; error?: string }

/** The runs a schedule started (Temporal's visibility, so a run shows up within a second or so), at most `limit`. */
export async function listScheduleRuns(temporal: TemporalDeps, scheduleId: string, limit: number): Promise<WorkflowRun[]> {
  const runs: WorkflowRun[] = [];
  for await (const run of temporal.client.workflow.list({ query: `TemporalScheduledById = '${scheduleId}'`, pageSize: 1000 })) {
    runs.push({ workflowId: run.workflowId, runId: run.runId, status: run.status.name, startTime: run.startTime, ...(run.closeTime ? { closeTime: run.closeTime } : {}) });
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

const failureMessage = (error: unknown): string => {
  let cause = error as Error | undefined;
  while (cause?.cause instanceof Error) cause = cause.cause;
  return cause?.message || (error instanceof Error ? error.message : String(error));
};

const TASK_VERBS: Record<ConnectorTask, string> = { install: 'First fetch of', uninstall: 'Uninstall', reset: 'Reset' };

/**
 * Starts a connector operation that runs on Temporal (install's first fetch, uninstall, reset) and returns its workflow id, the task id the
 * API answers. A second request while one runs joins it; after it closed, a new run reuses the id.
 */
export async function startConnectorTask(temporal: TemporalDeps, connector: ConnectorRef, task: ConnectorTask): Promise<string> {
  const workflowId = connectorTaskId(connector, task);
  const common = {
    taskQueue: temporal.taskQueue, workflowId, workflowIdConflictPolicy: 'USE_EXISTING' as const,
    args: [{ connectorID: connector.id }] as [{ connectorID: string }], typedSearchAttributes: searchAttributes(connector.id),
    staticSummary: `${TASK_VERBS[task]} ${describeConnector(connector)}`, staticDetails: details(connector),
  };
  if (task === 'install') await temporal.client.workflow.start<typeof connectorInstall>('connectorInstall', common);
  else if (task === 'uninstall') await temporal.client.workflow.start<typeof connectorUninstall>('connectorUninstall', common);
  else await temporal.client.workflow.start<typeof connectorReset>('connectorReset', common);
  return workflowId;
}

/** Task workflows, by the type the getTask route reads. */
export const TASK_WORKFLOW_TYPES = ['connectorInstall', 'connectorUninstall', 'connectorReset', 'paymentInitiationExecute', 'bankAccountForward', 'paymentServiceUserDelete',
  'paymentInitiationReverse', 'openBankingDeleteConnection', 'openBankingDeletePsuConnector'] as const;

export interface TaskRun { workflowType: string; status: string; startTime: Date; closeTime?: Date; connectorID?: string; result?: unknown; error?: string }

/** Reads a payments task's workflow; undefined when there is no such workflow or it is not a payments task. */
export async function describeTaskRun(temporal: TemporalDeps, workflowId: string): Promise<TaskRun | undefined> {
  let description;
  try {
    description = await temporal.client.workflow.getHandle(workflowId).describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
  const area = description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.PlatformArea);
  if (area !== 'payments' || !(TASK_WORKFLOW_TYPES as readonly string[]).includes(description.type)) return undefined;
  const run: TaskRun = {
    workflowType: description.type, status: description.status.name, startTime: description.startTime,
    ...(description.closeTime ? { closeTime: description.closeTime } : {}),
    ...(description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.ConnectorID) ? { connectorID: description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.ConnectorID) } : {}),
  };
  if (run.status === 'RUNNING' || run.status === 'CONTINUED_AS_NEW') return run;
  try {
    return { ...run, result: await temporal.client.workflow.getHandle(workflowId, description.runId).result() };
  } catch (error) {
    return { ...run, error: failureMessage(error) };
  }
}

/**
 * The first releases ran one long-lived fetch workflow per connector (`connector-<id>-fetch`). It is terminated (its
 * type is no longer registered, so a cancel would never be handled) once the connector's schedules exist.
 */
export async function terminateLegacyFetch(temporal: TemporalDeps, connectorID: string): Promise<boolean> {
  try {
    await temporal.client.workflow.getHandle(legacyFetchWorkflowId(connectorID)).terminate('replaced by the connector\'s Temporal schedules');
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** Starts one attempt of an initiation's execution; starting an attempt twice is harmless. @returns the workflow id. */
export async function startInitiationExecution(temporal: TemporalDeps, input: { id: string; attempt: number; connectorID: string; summary?: string }): Promise<string> {
  const workflowId = initiationWorkflowId(input.id, input.attempt);
  try {
    await temporal.client.workflow.start<typeof paymentInitiationExecute>('paymentInitiationExecute', {
      taskQueue: temporal.taskQueue,
      workflowId,
      args: [{ paymentInitiationID: input.id, attempt: input.attempt }],
      typedSearchAttributes: searchAttributes(input.connectorID),
      ...(input.summary ? { staticSummary: input.summary, staticDetails: `Payment initiation id (API): \`${input.id}\`, attempt ${input.attempt}` } : {}),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return workflowId;
}

/**
 * Starts the forward of a bank account to a connector without waiting (Formance's 202 with a task); a run under way
 * is joined. @returns the task (workflow) id.
 */
export async function startBankAccountForward(temporal: TemporalDeps, bankAccountID: string, connectorID: string): Promise<string> {
  const workflowId = forwardWorkflowId(bankAccountID, connectorID);
  await temporal.client.workflow.start<typeof bankAccountForward>('bankAccountForward', {
    taskQueue: temporal.taskQueue, workflowId, args: [{ bankAccountID, connectorID }], typedSearchAttributes: searchAttributes(connectorID),
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return workflowId;
}

/**
 * Waits for a payments task's workflow to close and answers it as describeTaskRun does, or undefined after
 * `timeoutMs` (the task goes on; read it with getTask). For the v1 API, whose forward answers the bank account.
 */
export async function awaitTaskRun(temporal: TemporalDeps, workflowId: string, timeoutMs: number): Promise<TaskRun | undefined> {
  const run = await waitFor(temporal, workflowId, timeoutMs);
  return run.outcome === 'timeout' ? undefined : describeTaskRun(temporal, workflowId);
}

/** Starts the deletion of a payment service user (joining one under way). @returns the task (workflow) id. */
export async function startPaymentServiceUserDelete(temporal: TemporalDeps, paymentServiceUserID: string): Promise<string> {
  const workflowId = `payment-service-user-${paymentServiceUserID}-delete`;
  await temporal.client.workflow.start<typeof paymentServiceUserDelete>('paymentServiceUserDelete', {
    taskQueue: temporal.taskQueue, workflowId, args: [{ paymentServiceUserID }], workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: [{ key: SEARCH_ATTRIBUTES.PlatformArea, value: 'payments' }],
    staticSummary: `Delete payment service user ${paymentServiceUserID}`,
  });
  return workflowId;
}

/**
 * Starts the execution of one reversal (`payment-initiation-<id>-reversal-<n>`, the n-th reversal of the initiation);
 * starting it twice is harmless. @returns the workflow id.
 */
export async function startReversalExecution(
  temporal: TemporalDeps, input: { paymentInitiationID: string; number: number; reversalID: string; connectorID: string; summary: string },
): Promise<string> {
  const workflowId = reversalWorkflowId(input.paymentInitiationID, input.number);
  try {
    await temporal.client.workflow.start<typeof paymentInitiationReverse>('paymentInitiationReverse', {
      taskQueue: temporal.taskQueue, workflowId, args: [{ reversalID: input.reversalID }], typedSearchAttributes: searchAttributes(input.connectorID),
      staticSummary: input.summary, staticDetails: `Payment initiation id (API): \`${input.paymentInitiationID}\`, reversal id (API): \`${input.reversalID}\``,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return workflowId;
}

/** How a workflow the API waited for ended: its result, its failure's message, or still running at the deadline. */
export type WaitedRun<T> = { outcome: 'completed'; result: T } | { outcome: 'failed'; message: string } | { outcome: 'timeout' };

async function waitFor<T>(temporal: TemporalDeps, workflowId: string, timeoutMs: number): Promise<WaitedRun<T>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<WaitedRun<T>>((resolve) => (timer = setTimeout(() => resolve({ outcome: 'timeout' }), timeoutMs)));
  try {
    return await Promise.race([
      temporal.client.workflow.getHandle(workflowId).result().then(
        (result) => ({ outcome: 'completed' as const, result: result as T }),
        (error) => ({ outcome: 'failed' as const, message: failureMessage(error) }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const psuSummary = (psuID: string, connectorID: string) => `payment service user ${psuID} at connector ${connectorID}`;

/**
 * Registers a payment service user at a connector's provider and waits for it (Formance answers this one when done);
 * a forward under way is joined. Id `payment-service-user-<id>-forward-<connectorID>`.
 */
export async function runPaymentServiceUserForward(temporal: TemporalDeps, psuID: string, connectorID: string, timeoutMs: number): Promise<WaitedRun<void>> {
  const workflowId = `payment-service-user-${psuID}-forward-${connectorID}`;
  await temporal.client.workflow.start<typeof paymentServiceUserForward>('paymentServiceUserForward', {
    taskQueue: temporal.taskQueue, workflowId, args: [{ psuID, connectorID }], workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: searchAttributes(connectorID), staticSummary: `Forward ${psuSummary(psuID, connectorID)}`,
  });
  return waitFor<void>(temporal, workflowId, timeoutMs);
}

/**
 * Completes a link attempt after the end user's decision on the consent page (Formance's asynchronous completion);
 * one run per attempt, so a second decision joins the first. Waits up to `timeoutMs` so the redirect usually lands
 * after the connection exists; the run goes on either way.
 */
export async function runLinkCompletion(
  temporal: TemporalDeps, input: { attemptID: string; connectorID: string; decision: 'approve' | 'reject' }, timeoutMs: number,
): Promise<WaitedRun<void>> {
  const workflowId = `open-banking-link-attempt-${input.attemptID}`;
  await temporal.client.workflow.start<typeof openBankingCompleteLink>('openBankingCompleteLink', {
    taskQueue: temporal.taskQueue, workflowId, args: [{ attemptID: input.attemptID, decision: input.decision }], workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: searchAttributes(input.connectorID), staticSummary: `Complete link attempt ${input.attemptID} (${input.decision})`,
  });
  return waitFor<void>(temporal, workflowId, timeoutMs);
}

/** Starts the deletion of one bank connection (joining one under way). @returns the task (workflow) id. */
export async function startConnectionDelete(temporal: TemporalDeps, input: { psuID: string; connectorID: string; connectionID: string }): Promise<string> {
  const workflowId = `payment-service-user-${input.psuID}-connection-${input.connectionID}-delete`;
  await temporal.client.workflow.start<typeof openBankingDeleteConnection>('openBankingDeleteConnection', {
    taskQueue: temporal.taskQueue, workflowId, args: [input], workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: searchAttributes(input.connectorID), staticSummary: `Delete connection ${input.connectionID} of ${psuSummary(input.psuID, input.connectorID)}`,
  });
  return workflowId;
}

/** Starts the removal of a payment service user from a connector (joining one under way). @returns the task id. */
export async function startPsuConnectorDelete(temporal: TemporalDeps, psuID: string, connectorID: string): Promise<string> {
  const workflowId = `payment-service-user-${psuID}-connector-${connectorID}-delete`;
  await temporal.client.workflow.start<typeof openBankingDeletePsuConnector>('openBankingDeletePsuConnector', {
    taskQueue: temporal.taskQueue, workflowId, args: [{ psuID, connectorID }], workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: searchAttributes(connectorID), staticSummary: `Delete ${psuSummary(psuID, connectorID)}`,
  });
  return workflowId;
}
