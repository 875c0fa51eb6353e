import { notFound, validationError } from '../../../lib/errors';
import type { TemporalDeps } from '../../../lib/temporal';
import type { Db, Executor } from '../../../db/knex';
import type { ConnectorProvider } from './connector-config';
import { installConnector, resetConnector, uninstallConnector } from './connector-install';
import { updateConnectorConfig } from './connector-update';
import { getConnectorConfig, type ConnectorRow } from './connectors';
import { connectorTaskId, describeTaskRun, type ConnectorTask } from '../engine';

/**
 * Payments v1 names a connector by its provider, in Formance's upper-case `Connector` names, and optionally by id
 * (`/connectors/{connector}/{connectorId}`). The simulated plugin is file-driven like Formance's dummypay, so v1
 * calls it DUMMY-PAY; the plugin names themselves are accepted too.
 */
const V1_PROVIDERS: Record<string, ConnectorProvider> = {
  'DUMMY-PAY': 'simulated',
  DUMMYPAY: 'simulated',
  SIMULATED: 'simulated',
  GENERIC: 'generic',
  STRIPE: 'stripe',
  MANGOPAY: 'mangopay',
  ADYEN: 'adyen',
};
const V1_NAMES: Record<ConnectorProvider, string> = {
  simulated: 'DUMMY-PAY',
  generic: 'GENERIC',
  stripe: 'STRIPE',
  mangopay: 'MANGOPAY',
  adyen: 'ADYEN',
};

export const v1ProviderName = (plugin: string): string => V1_NAMES[plugin as ConnectorProvider] ?? plugin.toUpperCase();
const pluginOf = (provider: string): ConnectorProvider | undefined => V1_PROVIDERS[provider.toUpperCase()];

/**
 * The installed connector a v1 call addresses. Without an id, the most recently installed connector of the provider
 * (Formance refuses when several are installed; answering the newest keeps one-connector-per-provider clients working
 * across a reinstall). Throws NOT_FOUND.
 */
export async function resolveConnectorV1(db: Executor, provider: string, connectorID?: string): Promise<ConnectorRow> {
  const plugin = pluginOf(provider);
  if (!plugin) throw notFound(`no ${provider} connector is installed`);
  const query = db('payments_connectors').where({ provider: plugin }).whereNull('uninstalled_at');
  if (connectorID !== undefined) query.where({ id: connectorID });
  const row = await query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first();
  if (!row)
    throw notFound(
      connectorID ? `connector ${connectorID} of provider ${provider} not found or uninstalled` : `no ${provider} connector is installed`,
    );
  return row;
}

/** Formance's v1 configs (DummyPayConfig, GenericConfig) in the plugins' config shape; v1 members the plugins do not use are dropped. */
function pluginConfig(plugin: ConnectorProvider, body: Record<string, unknown>): Record<string, unknown> {
  const pollingPeriod = (body.filePollingPeriod ?? body.pollingPeriod) as string | undefined;
  if (plugin === 'simulated' && typeof body.directory !== 'string') throw validationError('body.directory: required for DUMMY-PAY');
  if (plugin === 'generic' && typeof body.endpoint !== 'string') throw validationError('body.endpoint: required for GENERIC');
  const config =
    plugin === 'simulated'
      ? { name: body.name, directory: body.directory, pollingPeriod }
      : plugin === 'stripe'
        ? { name: body.name, apiKey: body.apiKey, endpoint: body.endpoint, webhookSecret: body.webhookSecret, pollingPeriod }
        : plugin === 'adyen'
          ? {
              name: body.name,
              apiKey: body.apiKey,
              companyID: body.companyID,
              liveEndpointPrefix: body.liveEndpointPrefix,
              webhookUsername: body.webhookUsername,
              webhookPassword: body.webhookPassword,
              endpoint: body.endpoint,
              pollingPeriod,
            }
          : { name: body.name, endpoint: body.endpoint, apiKey: body.apiKey, pollingPeriod };
  return Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined));
}

/** Throws VALIDATION, CONFLICT, SERVICE_UNAVAILABLE. */
export async function installConnectorV1(
  deps: { db: Db; temporal: TemporalDeps; dataDir: string },
  provider: string,
  body: Record<string, unknown>,
): Promise<string> {
  const plugin = pluginOf(provider);
  if (!plugin) throw validationError(`connector: ${provider} is not available on this platform (available: ${Object.values(V1_NAMES).join(', ')})`);
  return installConnector(deps, plugin, pluginConfig(plugin, body));
}

/** Replaces the config (as v3's update: the name cannot change). Throws NOT_FOUND, VALIDATION, SERVICE_UNAVAILABLE. */
export async function updateConnectorConfigV1(
  deps: { db: Db; temporal: TemporalDeps; dataDir: string },
  provider: string,
  connectorID: string,
  body: Record<string, unknown>,
): Promise<void> {
  const row = await resolveConnectorV1(deps.db, provider, connectorID);
  // v1's GenericConfig has no request timeout: the stored one is kept rather than reset to the default.
  const kept = 'timeout' in row.config ? { timeout: row.config.timeout } : {};
  await updateConnectorConfig(deps, row.id, { ...pluginConfig(row.provider as ConnectorProvider, body), ...kept });
}

export interface ConnectorV1 {
  connectorID: string;
  name: string;
  provider: string;
  enabled: boolean;
}

/** Installed connectors (v1 has no notion of an uninstalled one), oldest first. */
export async function listConnectorsV1(db: Executor): Promise<ConnectorV1[]> {
  const rows: ConnectorRow[] = await db('payments_connectors')
    .whereNull('uninstalled_at')
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return rows.map((r) => ({ connectorID: r.id, name: r.name, provider: v1ProviderName(r.provider), enabled: true }));
}

/** The config in Formance's v1 type; dummypay names its polling period `filePollingPeriod`. */
export async function readConnectorConfigV1(db: Executor, provider: string, connectorID?: string): Promise<Record<string, unknown>> {
  const row = await resolveConnectorV1(db, provider, connectorID);
  const config = await getConnectorConfig(db, row.id);
  return row.provider === 'simulated' ? { ...config, filePollingPeriod: config.pollingPeriod } : config;
}

type Deps = { db: Db; temporal: TemporalDeps };
export async function uninstallConnectorV1(deps: Deps, provider: string, connectorID?: string): Promise<void> {
  await uninstallConnector(deps, (await resolveConnectorV1(deps.db, provider, connectorID)).id);
}
export async function resetConnectorV1(deps: Deps, provider: string, connectorID?: string): Promise<void> {
  await resetConnector(deps, (await resolveConnectorV1(deps.db, provider, connectorID)).id);
}

/** Formance's v1 task: a descriptor naming what runs, and a status from PENDING/ACTIVE to TERMINATED/FAILED. */
export interface TaskV1 {
  id: string;
  connectorID: string;
  createdAt: Date;
  updatedAt: Date;
  status: 'ACTIVE' | 'TERMINATED' | 'FAILED';
  descriptor: { name: string; key: string };
  state: Record<string, never>;
  error?: string;
}
const CONNECTOR_TASKS: ConnectorTask[] = ['install', 'reset', 'uninstall'];

async function taskV1(temporal: TemporalDeps, connectorID: string, kind: string, workflowId: string): Promise<TaskV1 | undefined> {
  const run = await describeTaskRun(temporal, workflowId);
  if (!run || run.connectorID !== connectorID) return undefined;
  const status =
    run.status === 'RUNNING' || run.status === 'CONTINUED_AS_NEW'
      ? 'ACTIVE'
      : run.status === 'COMPLETED' && run.error === undefined
        ? 'TERMINATED'
        : 'FAILED';
  return {
    id: workflowId,
    connectorID,
    createdAt: run.startTime,
    updatedAt: run.closeTime ?? run.startTime,
    status,
    descriptor: { name: kind, key: kind },
    state: {},
    ...(status === 'FAILED' ? { error: run.error ?? run.status } : {}),
  };
}

/**
 * A v1 connector's tasks are its install, reset and uninstall runs (Temporal workflows; a reset or uninstall that
 * never ran is not listed), newest first. The recurring fetches are Temporal schedules, read through v3's schedules.
 */
export async function listConnectorTasksV1(deps: Deps, provider: string, connectorID?: string): Promise<TaskV1[]> {
  const row = await resolveConnectorV1(deps.db, provider, connectorID);
  const tasks = await Promise.all(CONNECTOR_TASKS.map((kind) => taskV1(deps.temporal, row.id, kind, connectorTaskId(row, kind))));
  return tasks.filter((t): t is TaskV1 => t !== undefined).sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
}

/** Throws NOT_FOUND when the task is not one of the connector's. */
export async function getConnectorTaskV1(deps: Deps, provider: string, taskID: string, connectorID?: string): Promise<TaskV1> {
  const row = await resolveConnectorV1(deps.db, provider, connectorID);
  const kind = CONNECTOR_TASKS.find((k) => connectorTaskId(row, k) === taskID);
  const task = kind ? await taskV1(deps.temporal, row.id, kind, taskID) : undefined;
  if (!task) throw notFound(`task ${taskID} of connector ${row.id} not found`);
  return task;
}
