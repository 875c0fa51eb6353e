import { notFound } from '../../../lib/errors';
import type { TemporalDeps } from '../../../lib/temporal';
import type { Db } from '../../../db/knex';
import type { Page, PageRequest } from '../../../db/pagination';
import { fetchKindsOf } from './connector-catalog';
import { getConnectorRow, type ConnectorRow } from './connectors';
import { describeSchedule, listScheduleRuns, runFailure, scheduleIdOf, type ScheduleState } from '../engine';

type Deps = { db: Db; temporal: TemporalDeps };

/** Formance's V3Schedule, read from Temporal, plus the kind of data it polls and whether it is paused. */
export interface ConnectorSchedule {
  id: string;
  connectorID: string;
  createdAt: Date;
  kind: string;
  paused: boolean;
  pausedAt?: Date;
  pausedReason?: string;
  nextRunAt?: Date;
}
/** Formance's V3Instance: one run a schedule started. */
export interface ScheduleInstance {
  id: string;
  scheduleID: string;
  connectorID: string;
  createdAt: Date;
  updatedAt: Date;
  terminated: boolean;
  terminatedAt?: Date;
  error?: string;
}

const present = (connectorID: string, kind: string, s: ScheduleState): ConnectorSchedule => ({
  id: s.scheduleId,
  connectorID,
  createdAt: s.createdAt,
  kind,
  paused: s.paused,
  ...(s.paused ? { pausedAt: s.lastUpdatedAt ?? s.createdAt, pausedReason: s.note ?? '' } : {}),
  ...(s.nextRunAt ? { nextRunAt: s.nextRunAt } : {}),
});

/** Keyset paging of a short list held in memory, newest first by (createdAt, id), as the SQL lists page. */
function pageOf<T extends { createdAt: Date; id: string }>(all: T[], request: PageRequest): Page<T> {
  const key = (item: T) => `${item.createdAt.toISOString()}\u0000${item.id}`;
  const sorted = [...all].sort((a, b) => (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0));
  const at = request.position ? `${String(request.position.key[0])}\u0000${String(request.position.key[1])}` : undefined;
  if (request.position?.dir === 'prev') {
    const before = sorted.filter((item) => key(item) > (at as string));
    const items = before.slice(-request.pageSize);
    return { items, hasNext: true, hasPrevious: before.length > request.pageSize };
  }
  const after = at === undefined ? sorted : sorted.filter((item) => key(item) < at);
  return { items: after.slice(0, request.pageSize), hasNext: after.length > request.pageSize, hasPrevious: at !== undefined };
}
export const scheduleItemKey = (item: { createdAt: Date; id: string }): unknown[] => [item.createdAt.toISOString(), item.id];

/** The connector's schedules; an uninstalled connector has none (they were deleted). Throws NOT_FOUND. */
export async function listConnectorSchedules(deps: Deps, connectorID: string, page: PageRequest): Promise<Page<ConnectorSchedule>> {
  const row = await getConnectorRow(deps.db, connectorID);
  const schedules: ConnectorSchedule[] = [];
  if (!row.uninstalled_at) {
    for (const kind of fetchKindsOf(row.provider)) {
      const description = await describeSchedule(deps.temporal, scheduleIdOf(row, kind));
      if (description) schedules.push(present(row.id, kind, description));
    }
  }
  return pageOf(schedules, page);
}

/** Finds one of an installed connector's schedules; a schedule of an uninstalled connector is NOT_FOUND. */
async function findSchedule(deps: Deps, connectorID: string, scheduleID: string): Promise<{ row: ConnectorRow; schedule: ConnectorSchedule }> {
  const row = await getConnectorRow(deps.db, connectorID);
  const kind = fetchKindsOf(row.provider).find((k) => scheduleIdOf(row, k) === scheduleID);
  if (!kind) throw notFound(`schedule ${scheduleID} is not a schedule of connector ${connectorID}`);
  if (row.uninstalled_at) throw notFound(`schedule ${scheduleID} was deleted with its connector ${connectorID}`);
  const description = await describeSchedule(deps.temporal, scheduleID);
  if (!description) throw notFound(`schedule ${scheduleID} not found on Temporal`);
  return { row, schedule: present(row.id, kind, description) };
}

export async function getConnectorSchedule(deps: Deps, connectorID: string, scheduleID: string): Promise<ConnectorSchedule> {
  return (await findSchedule(deps, connectorID, scheduleID)).schedule;
}

/** How many runs of a schedule the instances list reads from Temporal's visibility: the most recent ones. */
export const MAX_LISTED_RUNS = 1000;

/** The runs a schedule started, newest first, with the error of a failed one. Throws NOT_FOUND. */
export async function listScheduleInstances(deps: Deps, connectorID: string, scheduleID: string, page: PageRequest): Promise<Page<ScheduleInstance>> {
  await findSchedule(deps, connectorID, scheduleID);
  const runs = await listScheduleRuns(deps.temporal, scheduleID, MAX_LISTED_RUNS);
  const instances = runs.map((run): ScheduleInstance & { runId: string; status: string } => ({
    id: run.workflowId,
    runId: run.runId,
    status: run.status,
    scheduleID,
    connectorID,
    createdAt: run.startTime,
    updatedAt: run.closeTime ?? run.startTime,
    terminated: run.status !== 'RUNNING',
    ...(run.closeTime ? { terminatedAt: run.closeTime } : {}),
  }));
  const result = pageOf(instances, page);
  const items = await Promise.all(
    result.items.map(async ({ runId, status, ...instance }): Promise<ScheduleInstance> => {
      if (!['FAILED', 'TIMED_OUT', 'TERMINATED', 'CANCELLED'].includes(status)) return instance;
      return { ...instance, error: (await runFailure(deps.temporal, instance.id, runId)) ?? status };
    }),
  );
  return { ...result, items };
}
