import {
  connectorConfigFields,
  getConnectorTaskV1,
  installConnectorV1,
  listConnectorsV1,
  listConnectorTasksV1,
  readConnectorConfigV1,
  resetConnectorV1,
  uninstallConnectorV1,
  updateConnectorConfigV1,
} from '../../../areas/payments';
import { PLATFORM_VERSION } from '../../../lib/version';
import type { AppContext } from '../../context';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { defineRoute, type RouteDefinition } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import { connectorConfigsSchema, plainListQuery } from '../../schemas/payments';
import {
  connectorConfigV1Schema,
  connectorV1Schema,
  providerIdParams,
  providerIdTaskParams,
  providerParams,
  providerTaskParams,
  serverInfoV1Schema,
  taskV1Schema,
} from '../../schemas/payments-v1';
import { noContent, tags, temporalOf } from './common';

/**
 * Formance's payments v1 connector operations. A connector is named by its provider (DUMMY-PAY for the simulated
 * plugin, GENERIC) and, on the `/{connector}/{connectorId}/...` forms, by its id as well.
 */
const base = '/api/payments/connectors';
const deps = (ctx: Pick<AppContext, 'deps'>) => ({ db: ctx.deps.db, temporal: temporalOf(ctx) });

export const serverInfoV1Route = defineRoute(
  {
    method: 'get',
    path: '/api/payments/_info',
    operationId: 'getPaymentsServerInfoV1',
    summary: 'Payments service version (v1 ServerInfo)',
    tags,
    responses: { 200: { description: 'Server info', schema: serverInfoV1Schema } },
  },
  authenticate('payments:read'),
  validate({}),
  async function serverInfoV1Handler(ctx) {
    ctx.body = { version: PLATFORM_VERSION, debug: false };
  },
);

export const listConnectorsV1Route = defineRoute(
  {
    method: 'get',
    path: base,
    operationId: 'listConnectorsV1',
    summary: 'Installed connectors (v1)',
    tags,
    responses: { 200: { description: 'Connectors', schema: dataOf({ type: 'array', items: connectorV1Schema }) } },
  },
  authenticate('payments:read'),
  validate({}),
  async function listConnectorsV1Handler(ctx) {
    ctx.body = { data: await listConnectorsV1(ctx.deps.db) };
  },
);

export const listConnectorConfigsV1Route = defineRoute(
  {
    method: 'get',
    path: `${base}/configs`,
    operationId: 'listConnectorConfigsV1',
    summary: 'The config fields of each plugin (v1)',
    tags,
    responses: { 200: { description: 'Per plugin', schema: dataOf(connectorConfigsSchema) } },
  },
  authenticate('payments:read'),
  validate({}),
  async function listConnectorConfigsV1Handler(ctx) {
    ctx.body = { data: connectorConfigFields() };
  },
);

export const installConnectorV1Route = defineRoute(
  {
    method: 'post',
    path: `${base}/{connector}`,
    operationId: 'installConnectorV1',
    summary: 'Install a connector of a provider (v1)',
    tags,
    description: 'DUMMY-PAY takes a DummyPayConfig (its `filePollingPeriod` is the polling period), GENERIC a GenericConfig.',
    responses: {
      201: {
        description: 'Installed; fetching started',
        schema: dataOf({ type: 'object', required: ['connectorID'], properties: { connectorID: { type: 'string' } } }),
      },
    },
  },
  authenticate('payments:write'),
  validate({ params: providerParams, body: connectorConfigV1Schema }),
  async function installConnectorV1Handler(ctx) {
    const connectorID = await installConnectorV1(
      { ...deps(ctx), dataDir: ctx.deps.config.dataDir },
      ctx.state.input.params.connector,
      ctx.state.input.body,
    );
    ctx.status = 201;
    ctx.body = { data: { connectorID } };
  },
);

/** Each v1 connector operation exists on `/{connector}/...` (the provider's newest installed connector) and `/{connector}/{connectorId}/...`. */
function configRoute(path: string, operationId: string, withId: boolean): RouteDefinition {
  return defineRoute(
    {
      method: 'get',
      path,
      operationId,
      summary: "A connector's config (v1; secrets redacted)",
      tags,
      responses: { 200: { description: 'Config', schema: dataOf({ type: 'object' }) } },
    },
    authenticate('payments:read'),
    validate({ params: withId ? providerIdParams : providerParams }),
    async function readConnectorConfigV1Handler(ctx) {
      const params = ctx.state.input.params as { connector: string; connectorId?: string };
      ctx.body = { data: await readConnectorConfigV1(ctx.deps.db, params.connector, params.connectorId) };
    },
  );
}

function uninstallRoute(path: string, operationId: string, withId: boolean): RouteDefinition {
  return defineRoute(
    { method: 'delete', path, operationId, summary: 'Uninstall a connector (v1): fetching stops, fetched data stays', tags, responses: noContent },
    authenticate('payments:write'),
    validate({ params: withId ? providerIdParams : providerParams }),
    async function uninstallConnectorV1Handler(ctx) {
      const params = ctx.state.input.params as { connector: string; connectorId?: string };
      await uninstallConnectorV1(deps(ctx), params.connector, params.connectorId);
      ctx.status = 204;
    },
  );
}

function resetRoute(path: string, operationId: string, withId: boolean): RouteDefinition {
  return defineRoute(
    { method: 'post', path, operationId, summary: 'Fetch everything again from the provider (v1)', tags, responses: noContent },
    authenticate('payments:write'),
    validate({ params: withId ? providerIdParams : providerParams }),
    async function resetConnectorV1Handler(ctx) {
      const params = ctx.state.input.params as { connector: string; connectorId?: string };
      await resetConnectorV1(deps(ctx), params.connector, params.connectorId);
      ctx.status = 204;
    },
  );
}

function tasksRoute(path: string, operationId: string, withId: boolean): RouteDefinition {
  return defineRoute(
    {
      method: 'get',
      path,
      operationId,
      summary: "A connector's tasks (v1): its install, reset and uninstall runs, newest first",
      tags,
      responses: { 200: { description: 'Cursor', schema: cursorOf(taskV1Schema) } },
    },
    authenticate('payments:read'),
    validate({ params: withId ? providerIdParams : providerParams, query: plainListQuery }),
    async function listConnectorTasksV1Handler(ctx) {
      const params = ctx.state.input.params as { connector: string; connectorId?: string };
      const { pageSize } = ctx.state.input.list;
      const tasks = await listConnectorTasksV1(deps(ctx), params.connector, params.connectorId);
      // At most three tasks: one page, whatever the page size, so no cursor is ever issued.
      ctx.body = { cursor: { pageSize, hasMore: false, previous: '', next: '', data: tasks } };
    },
  );
}

function taskRoute(path: string, operationId: string, withId: boolean): RouteDefinition {
  return defineRoute(
    {
      method: 'get',
      path,
      operationId,
      summary: "One of a connector's tasks (v1)",
      tags,
      responses: { 200: { description: 'Task', schema: dataOf(taskV1Schema) } },
    },
    authenticate('payments:read'),
    validate({ params: withId ? providerIdTaskParams : providerTaskParams }),
    async function getConnectorTaskV1Handler(ctx) {
      const params = ctx.state.input.params as { connector: string; connectorId?: string; taskId: string };
      ctx.body = { data: await getConnectorTaskV1(deps(ctx), params.connector, params.taskId, params.connectorId) };
    },
  );
}

export const updateConnectorConfigV1Route = defineRoute(
  {
    method: 'post',
    path: `${base}/{connector}/{connectorId}/config`,
    operationId: 'updateConnectorConfigV1',
    summary: "Replace a connector's config (v1); the name cannot change",
    tags,
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({ params: providerIdParams, body: connectorConfigV1Schema }),
  async function updateConnectorConfigV1Handler(ctx) {
    const { connector, connectorId } = ctx.state.input.params;
    await updateConnectorConfigV1({ ...deps(ctx), dataDir: ctx.deps.config.dataDir }, connector, connectorId, ctx.state.input.body);
    ctx.status = 204;
  },
);

// Static segments first: the router answers with the first matching route.
export const connectorV1Routes = [
  serverInfoV1Route,
  listConnectorsV1Route,
  listConnectorConfigsV1Route,
  installConnectorV1Route,
  configRoute(`${base}/{connector}/config`, 'readConnectorConfigV1', false),
  resetRoute(`${base}/{connector}/reset`, 'resetConnectorV1', false),
  tasksRoute(`${base}/{connector}/tasks`, 'listConnectorTasksV1', false),
  taskRoute(`${base}/{connector}/tasks/{taskId}`, 'getConnectorTaskV1', false),
  uninstallRoute(`${base}/{connector}`, 'uninstallConnectorV1', false),
  configRoute(`${base}/{connector}/{connectorId}/config`, 'readConnectorConfigV1ById', true),
  resetRoute(`${base}/{connector}/{connectorId}/reset`, 'resetConnectorV1ById', true),
  tasksRoute(`${base}/{connector}/{connectorId}/tasks`, 'listConnectorTasksV1ById', true),
  taskRoute(`${base}/{connector}/{connectorId}/tasks/{taskId}`, 'getConnectorTaskV1ById', true),
  uninstallRoute(`${base}/{connector}/{connectorId}`, 'uninstallConnectorV1ById', true),
  updateConnectorConfigV1Route,
];
