import { installConnector, uninstallConnector } from '../../../areas/payments';
import type { ConnectorProvider } from '../../../areas/payments';
import { connectorKey, getConnectorConfig, listConnectors } from '../../../areas/payments';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import { connectorSchema, genericConfigSchema, idParams, plainListQuery, simulatedConfigSchema } from '../../schemas/payments';
import { noContent, tags, temporalOf } from './common';

const base = '/api/payments/v3/connectors';
const params = idParams('connectorID');

/** One install route per plugin, so each config has its exact schema in the OpenAPI document. */
function installRoute(provider: ConnectorProvider, schema: typeof simulatedConfigSchema | typeof genericConfigSchema, summary: string) {
  return defineRoute(
    { method: 'post', path: `${base}/install/${provider}`, operationId: `installConnector_${provider}`, summary, tags,
      description: 'Starts the connector\'s fetch workflow `connector-<connectorID>-fetch` on Temporal.',
      responses: { 202: { description: 'Installed; fetching started', schema: dataOf({ type: 'string', description: 'connectorID' }) } } },
    authenticate('payments:write'),
    validate({ body: schema }),
    async function installConnectorHandler(ctx) {
      const deps = { db: ctx.deps.db, temporal: temporalOf(ctx), dataDir: ctx.deps.config.dataDir };
      ctx.status = 202;
      ctx.body = { data: await installConnector(deps, provider, ctx.state.input.body) };
    },
  );
}

export const installSimulatedRoute = installRoute('simulated', simulatedConfigSchema, 'Install the simulated (file-driven) connector');
export const installGenericRoute = installRoute('generic', genericConfigSchema, 'Install the generic HTTP connector');

export const listConnectorsRoute = defineRoute(
  { method: 'get', path: base, operationId: 'listConnectors', summary: 'List connectors, installed and uninstalled', tags, responses: { 200: { description: 'Cursor', schema: cursorOf(connectorSchema) } } },
  authenticate('payments:read'),
  validate({ query: plainListQuery }),
  async function listConnectorsHandler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listConnectors(ctx.deps.db, list), connectorKey);
  },
);

export const readConnectorConfigRoute = defineRoute(
  { method: 'get', path: `${base}/{connectorID}/config`, operationId: 'readConnectorConfig', summary: 'Read a connector\'s config (secrets redacted)', tags,
    responses: { 200: { description: 'Config', schema: dataOf({ type: 'object' }) } } },
  authenticate('payments:read'),
  validate({ params }),
  async function readConnectorConfigHandler(ctx) {
    ctx.body = { data: await getConnectorConfig(ctx.deps.db, ctx.state.input.params.connectorID) };
  },
);

export const uninstallConnectorRoute = defineRoute(
  { method: 'delete', path: `${base}/{connectorID}`, operationId: 'uninstallConnector', summary: 'Uninstall: stop fetching; fetched data stays', tags, responses: noContent },
  authenticate('payments:write'),
  validate({ params }),
  async function uninstallConnectorHandler(ctx) {
    await uninstallConnector({ db: ctx.deps.db, temporal: temporalOf(ctx) }, ctx.state.input.params.connectorID);
    ctx.status = 204;
  },
);

export const connectorRoutes = [installSimulatedRoute, installGenericRoute, listConnectorsRoute, readConnectorConfigRoute, uninstallConnectorRoute];
