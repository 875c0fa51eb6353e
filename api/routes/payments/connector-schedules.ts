import { getConnectorSchedule, getTask, listConnectorSchedules, listScheduleInstances, scheduleItemKey } from '../../../areas/payments';
import type { AppContext } from '../../context';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import {
  connectorTaskSchema,
  idParams,
  plainListQuery,
  scheduleInstanceSchema,
  scheduleParams,
  scheduleSchema,
  schedulesListQuery,
} from '../../schemas/payments';
import { tags, temporalOf } from './common';

const base = '/api/payments/v3/connectors/{connectorID}/schedules';
const deps = (ctx: Pick<AppContext, 'deps'>) => ({ db: ctx.deps.db, temporal: temporalOf(ctx) });

export const listConnectorSchedulesRoute = defineRoute(
  {
    method: 'get',
    path: base,
    operationId: 'listConnectorSchedules',
    summary: "A connector's polling schedules, read from Temporal",
    tags,
    description: 'One Temporal schedule per kind of data; an uninstalled connector has none.',
    responses: { 200: { description: 'Cursor', schema: cursorOf(scheduleSchema) } },
  },
  authenticate('payments:read'),
  validate({ params: idParams('connectorID'), query: schedulesListQuery }),
  async function listConnectorSchedulesHandler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listConnectorSchedules(deps(ctx), ctx.state.input.params.connectorID, list), scheduleItemKey);
  },
);

export const getConnectorScheduleRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/{scheduleID}`,
    operationId: 'getConnectorSchedule',
    summary: "One of a connector's schedules",
    tags,
    description: "404 when the schedule is not one of the connector's, or the connector is uninstalled (its schedules were deleted).",
    responses: { 200: { description: 'Schedule', schema: dataOf(scheduleSchema) } },
  },
  authenticate('payments:read'),
  validate({ params: scheduleParams }),
  async function getConnectorScheduleHandler(ctx) {
    const { connectorID, scheduleID } = ctx.state.input.params;
    ctx.body = { data: await getConnectorSchedule(deps(ctx), connectorID, scheduleID) };
  },
);

export const listScheduleInstancesRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/{scheduleID}/instances`,
    operationId: 'listConnectorScheduleInstances',
    summary: 'The runs a schedule started',
    tags,
    description: "Newest first, from Temporal's visibility (the latest 1000 runs); a failed run carries its error.",
    responses: { 200: { description: 'Cursor', schema: cursorOf(scheduleInstanceSchema) } },
  },
  authenticate('payments:read'),
  validate({ params: scheduleParams, query: plainListQuery }),
  async function listScheduleInstancesHandler(ctx) {
    const { connectorID, scheduleID } = ctx.state.input.params;
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listScheduleInstances(deps(ctx), connectorID, scheduleID, list), scheduleItemKey);
  },
);

export const getTaskRoute = defineRoute(
  {
    method: 'get',
    path: '/api/payments/v3/tasks/{taskID}',
    operationId: 'getTask',
    summary: 'The state of an asynchronous payments operation',
    tags,
    description: "The task id is the id of the Temporal workflow that runs it (uninstall, reset, an initiation's execution, a forward).",
    responses: { 200: { description: 'Task', schema: dataOf(connectorTaskSchema) } },
  },
  authenticate('payments:read'),
  validate({ params: idParams('taskID') }),
  async function getTaskHandler(ctx) {
    ctx.body = { data: await getTask(temporalOf(ctx), ctx.state.input.params.taskID) };
  },
);

export const connectorScheduleRoutes = [listConnectorSchedulesRoute, getConnectorScheduleRoute, listScheduleInstancesRoute, getTaskRoute];
