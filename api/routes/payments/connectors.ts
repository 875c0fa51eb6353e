import { createHash } from 'node:crypto';
import {
  allCapabilities,
  capabilitiesOf,
  connectorConfigFields,
  getConnectorRow,
  installConnector,
  resetConnector,
  uninstallConnector,
  updateConnectorConfig,
} from '../../../areas/payments';
import { connectorConfigBodySchema, connectorPlugins, type ConnectorPluginModule } from '../../../areas/payments';
import { connectorKey, getConnectorConfig, listConnectors } from '../../../areas/payments';
import { stringifyJson } from '../../../lib/json';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf, mapSchema } from '../../schemas/common';
import { capabilitiesSchema, connectorConfigsSchema, connectorSchema, connectorsListQuery, idParams, taskSchema } from '../../schemas/payments';
import { anyConfigSchema } from '../../schemas/payment-connector-configs';
import { noContent, tags, temporalOf } from './common';

const base = '/api/payments/v3/connectors';
const params = idParams('connectorID');

/**
 * One install route per registered plugin, its body schema generated from the plugin's config schema (so the OpenAPI
 * document shows each config exactly); the area checks the body against the same schema again, for v1 installs too.
 */
function installRoute(plugin: ConnectorPluginModule) {
  const provider = plugin.name;
  return defineRoute(
    {
      method: 'post',
      path: `${base}/install/${provider}`,
      operationId: `installConnector_${provider}`,
      summary: `Install the ${provider} connector`,
      tags,
      description:
        "Creates the connector's Temporal schedules (one per kind of data, every `pollingPeriod`) and starts its first fetch (task `<label>-install`).",
      responses: { 202: { description: 'Installed; fetching started', schema: dataOf({ type: 'string', description: 'connectorID' }) } },
      ...(plugin.config.example ? { requestExample: plugin.config.example } : {}),
    },
    authenticate('payments:write'),
    // The plugin's schema: its members are known at start only, so the handler reads the body as any config object.
    validate({ body: connectorConfigBodySchema(provider) as unknown as typeof anyConfigSchema }),
    async function installConnectorHandler(ctx) {
      const deps = { db: ctx.deps.db, temporal: temporalOf(ctx), dataDir: ctx.deps.config.dataDir };
      ctx.status = 202;
      ctx.body = { data: await installConnector(deps, provider, ctx.state.input.body) };
    },
  );
}

/** The install routes of the plugins registered in this process (activities/payments/plugins/index.ts), in their order. */
export const connectorInstallRoutes = (plugins: ConnectorPluginModule[] = connectorPlugins()) => plugins.map(installRoute);

export const listConnectorsRoute = defineRoute(
  {
    method: 'get',
    path: base,
    operationId: 'listConnectors',
    summary: 'List connectors, installed and uninstalled',
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(connectorSchema) } },
  },
  authenticate('payments:read'),
  validate({ query: connectorsListQuery }),
  async function listConnectorsHandler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listConnectors(ctx.deps.db, list), connectorKey);
  },
);

export const readConnectorConfigRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/{connectorID}/config`,
    operationId: 'readConnectorConfig',
    summary: "Read a connector's config (secrets redacted)",
    tags,
    responses: { 200: { description: "Config, with `provider` naming Formance's config type", schema: dataOf({ type: 'object' }) } },
  },
  authenticate('payments:read'),
  validate({ params }),
  async function readConnectorConfigHandler(ctx) {
    ctx.body = { data: await getConnectorConfig(ctx.deps.db, ctx.state.input.params.connectorID) };
  },
);

export const updateConnectorConfigRoute = defineRoute(
  {
    method: 'patch',
    path: `${base}/{connectorID}/config`,
    operationId: 'updateConnectorConfig',
    summary: "Replace an installed connector's config",
    tags,
    description:
      "The whole config, as at install (checked against the connector's plugin's config schema); the name cannot change. A new polling period is applied to the connector's schedules.",
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({ params, body: anyConfigSchema }),
  async function updateConnectorConfigHandler(ctx) {
    const deps = { db: ctx.deps.db, temporal: temporalOf(ctx), dataDir: ctx.deps.config.dataDir };
    await updateConnectorConfig(deps, ctx.state.input.params.connectorID, ctx.state.input.body);
    ctx.status = 204;
  },
);

export const listConnectorConfigsRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/configs`,
    operationId: 'listConnectorConfigs',
    summary: 'The config fields of each connector plugin',
    tags,
    responses: { 200: { description: 'Per plugin', schema: dataOf(connectorConfigsSchema) } },
  },
  authenticate('payments:read'),
  validate({}),
  async function listConnectorConfigsHandler(ctx) {
    ctx.body = { data: connectorConfigFields() };
  },
);

export const listConnectorCapabilitiesRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/capabilities`,
    operationId: 'listConnectorCapabilities',
    summary: 'The capabilities of each connector plugin',
    tags,
    headers: { 'If-None-Match': { description: 'The ETag of an earlier answer: 304 when unchanged.', schema: { type: 'string', maxLength: 200 } } },
    responses: {
      200: { description: 'Per plugin', schema: dataOf(mapSchema(capabilitiesSchema)) },
      304: { description: 'Unchanged since the ETag sent' },
    },
  },
  authenticate('payments:read'),
  validate({}),
  async function listConnectorCapabilitiesHandler(ctx) {
    const body = { data: allCapabilities() };
    const etag = `"${createHash('sha256').update(stringifyJson(body)).digest('base64url').slice(0, 22)}"`;
    ctx.set('ETag', etag);
    if (ctx.get('If-None-Match') === etag) {
      ctx.status = 304;
      return;
    }
    ctx.body = body;
  },
);

export const getConnectorCapabilitiesRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/{connectorID}/capabilities`,
    operationId: 'getConnectorCapabilities',
    summary: "A connector's capabilities",
    tags,
    description: 'An operation that needs a capability the connector lacks answers 400 naming it.',
    responses: { 200: { description: 'Capabilities', schema: dataOf(capabilitiesSchema) } },
  },
  authenticate('payments:read'),
  validate({ params }),
  async function getConnectorCapabilitiesHandler(ctx) {
    ctx.body = { data: capabilitiesOf((await getConnectorRow(ctx.deps.db, ctx.state.input.params.connectorID)).provider) };
  },
);

export const uninstallConnectorRoute = defineRoute(
  {
    method: 'delete',
    path: `${base}/{connectorID}`,
    operationId: 'uninstallConnector',
    summary: 'Uninstall: stop fetching; fetched data stays',
    tags,
    description:
      'Marks the connector uninstalled at once, then a task (a Temporal workflow) deletes its schedules; read it with GET /api/payments/v3/tasks/{taskID}.',
    responses: { 202: { description: 'Uninstalled; the task removes its schedules', schema: dataOf(taskSchema) } },
  },
  authenticate('payments:write'),
  validate({ params }),
  async function uninstallConnectorHandler(ctx) {
    ctx.status = 202;
    ctx.body = { data: { taskID: await uninstallConnector({ db: ctx.deps.db, temporal: temporalOf(ctx) }, ctx.state.input.params.connectorID) } };
  },
);

export const resetConnectorRoute = defineRoute(
  {
    method: 'post',
    path: `${base}/{connectorID}/reset`,
    operationId: 'resetConnector',
    summary: 'Fetch everything again from the provider',
    tags,
    description:
      "A task recreates the connector's schedules (unpaused) and fetches every kind of data from scratch; fetched rows are kept and upserted.",
    responses: { 202: { description: 'Task started', schema: dataOf({ type: 'string', description: 'taskID' }) } },
  },
  authenticate('payments:write'),
  validate({ params }),
  async function resetConnectorHandler(ctx) {
    ctx.status = 202;
    ctx.body = { data: await resetConnector({ db: ctx.deps.db, temporal: temporalOf(ctx) }, ctx.state.input.params.connectorID) };
  },
);

/** The connector routes but the install routes, which come from the registered plugins (connectorInstallRoutes). */
export const connectorRoutes = [
  listConnectorsRoute,
  listConnectorConfigsRoute,
  listConnectorCapabilitiesRoute,
  readConnectorConfigRoute,
  updateConnectorConfigRoute,
  getConnectorCapabilitiesRoute,
  uninstallConnectorRoute,
  resetConnectorRoute,
];
