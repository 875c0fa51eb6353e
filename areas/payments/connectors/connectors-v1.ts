import { notFound, validationError } from '../../../lib/errors';
import type { TemporalDeps } from '../../../lib/temporal';
import type { Db, Executor } from '../../../db/knex';
import type { ConnectorPluginModule } from './plugin-contract';
import { connectorPlugin, connectorPlugins, findConnectorPlugin } from './plugin-registry';
import { installConnector, resetConnector, uninstallConnector } from './connector-install';
import { updateConnectorConfig } from './connector-update';
import { getConnectorConfig, type ConnectorRow } from './connectors';
import { connectorTaskId, describeTaskRun, type ConnectorTask } from '../engine';

/**
 * Payments v1 names a connector by its provider, in Formance's upper-case `Connector` names (each plugin's `v1Names`),
 * and optionally by id (`/connectors/{connector}/{connectorId}`); the plugin names themselves are accepted too.
 */
const v1NamesOf = (plugin: ConnectorPluginModule): string[] => plugin.v1Names ?? [plugin.name.toUpperCase()];
export const v1ProviderName = (provider: string): string => {
  const plugin = findConnectorPlugin(provider);
  return plugin ? v1NamesOf(plugin)[0] : provider.toUpperCase();
};
const pluginOf = (provider: string): ConnectorPluginModule | undefined => {
  const name = provider.toUpperCase();
  return connectorPlugins().find((plugin) => plugin.name.toUpperCase() === name || v1NamesOf(plugin).includes(name));
};

/**
 * The installed connector a v1 call addresses. Without an id, the most recently installed connector of the provider
 * (Formance refuses when several are installed; answering the newest keeps one-connector-per-provider clients working
 * across a reinstall). Throws NOT_FOUND.
 */
export async function resolveConnectorV1(db: Executor, provider: string, connectorID?: string): Promise<ConnectorRow> {
  const plugin = pluginOf(provider);
  if (!plugin) throw notFound(`no ${provider} connector is installed`);
  const query = db('payments_connectors').where({ provider: plugin.name }).whereNull('uninstalled_at');
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

/**
 * Formance's v1 configs (DummyPayConfig, GenericConfig, …) in the plugin's config shape: its v1 aliases read as the
 * members they name, and v1 members the plugin does not take are dropped.
 */
function pluginConfig(plugin: ConnectorPluginModule, body: Record<string, unknown>): Record<string, unknown> {
  const aliased: Record<string, unknown> = { ...body };
  for (const [alias, member] of Object.entries(plugin.v1?.aliases ?? {})) {
    if (body[alias] !== undefined) aliased[member] = body[alias];
  }
  const members = ['name', 'pollingPeriod', ...Object.keys(plugin.config.schema.properties)];
  return Object.fromEntries(members.filter((key) => aliased[key] !== undefined).map((key) => [key, aliased[key]]));
}

/** Throws VALIDATION, CONFLICT, SERVICE_UNAVAILABLE. */
export async function installConnectorV1(
  deps: { db: Db; temporal: TemporalDeps; dataDir: string },
  provider: string,
  body: Record<string, unknown>,
): Promise<string> {
  const plugin = pluginOf(provider);
  if (!plugin)
    throw validationError(
      `connector: ${provider} is not available on this platform (available: ${connectorPlugins()
        .map((p) => v1NamesOf(p)[0])
        .join(', ')})`,
    );
  return installConnector(deps, plugin.name, pluginConfig(plugin, body));
}

/** Replaces the config (as v3's update: the name cannot change). Throws NOT_FOUND, VALIDATION, SERVICE_UNAVAILABLE. */
export async function updateConnectorConfigV1(
  deps: { db: Db; temporal: TemporalDeps; dataDir: string },
  provider: string,
  connectorID: string,
  body: Record<string, unknown>,
): Promise<void> {
  const row = await resolveConnectorV1(deps.db, provider, connectorID);
  const plugin = connectorPlugin(row.provider);
  // Members v1's config type lacks (GenericConfig's request timeout) keep their stored value rather than their default.
  const kept = Object.fromEntries((plugin.v1?.keepOnUpdate ?? []).filter((key) => key in row.config).map((key) => [key, row.config[key]]));
  await updateConnectorConfig(deps, row.id, { ...pluginConfig(plugin, body), ...kept });
}

export interface ConnectorV1 {
  connectorID: string;
  name: string;
  provider: string;
  enabled: boolean;
}

/**
 * Formance's v1 `Connector` names. Its SDK refuses any other provider in a v1 list, so one connector of a provider v1
 * cannot name (a team's own plugin, unless its `v1Names` is one of these) would fail every client's v1 list: v1 lists
 * only these; v3 lists every connector.
 */
const FORMANCE_V1_CONNECTORS = new Set([
  'STRIPE',
  'DUMMY-PAY',
  'WISE',
  'MODULR',
  'CURRENCY-CLOUD',
  'BANKING-CIRCLE',
  'MANGOPAY',
  'MONEYCORP',
  'ATLAR',
  'ADYEN',
  'GENERIC',
]);

/** Installed connectors of providers v1 can name (v1 has no notion of an uninstalled one), oldest first. */
export async function listConnectorsV1(db: Executor): Promise<ConnectorV1[]> {
  const rows: ConnectorRow[] = await db('payments_connectors')
    .whereNull('uninstalled_at')
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return rows
    .map((r) => ({ connectorID: r.id, name: r.name, provider: v1ProviderName(r.provider), enabled: true }))
    .filter((connector) => FORMANCE_V1_CONNECTORS.has(connector.provider));
}

/** The config in Formance's v1 type: the plugin's v1 aliases written beside the members they name. */
export async function readConnectorConfigV1(db: Executor, provider: string, connectorID?: string): Promise<Record<string, unknown>> {
  const row = await resolveConnectorV1(db, provider, connectorID);
  const config = await getConnectorConfig(db, row.id);
  for (const [alias, member] of Object.entries(findConnectorPlugin(row.provider)?.v1?.aliases ?? {})) config[alias] = config[member];
  return config;
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
