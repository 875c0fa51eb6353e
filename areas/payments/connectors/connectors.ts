import { notFound } from '../../../lib/errors';
import type { Executor } from '../../../db/knex';
import { keysetPage, type Page, type PageRequest } from '../../../db/pagination';
import type { ConnectorConfig } from './connector-config';
import { capabilitiesOf, type Capability } from './connector-catalog';
import { findConnectorPlugin } from './plugin-registry';
import { providerLabel } from '../enums';
import { connectorReference } from '../ids';

/** Formance's V3Connector, plus `installed` and `uninstalledAt` (an uninstalled connector stays listed, with its data). */
export interface Connector {
  id: string;
  reference: string;
  name: string;
  provider: string;
  createdAt: Date;
  config: Record<string, unknown>;
  capabilities: Capability[];
  scheduledForDeletion: boolean;
  installed: boolean;
  uninstalledAt?: Date;
}
export interface ConnectorRow {
  id: string;
  name: string;
  provider: string;
  config: ConnectorConfig;
  created_at: Date;
  uninstalled_at: Date | null;
}

const present = (r: ConnectorRow): Connector => ({
  id: r.id,
  reference: connectorReference(r.id) ?? r.id,
  name: r.name,
  provider: providerLabel(r.provider),
  createdAt: r.created_at,
  config: readableConfig(r),
  capabilities: capabilitiesOf(r.provider),
  scheduledForDeletion: r.uninstalled_at !== null,
  installed: r.uninstalled_at === null,
  ...(r.uninstalled_at ? { uninstalledAt: r.uninstalled_at } : {}),
});

/**
 * Formance's SDK reads a config as one of its providers' config types, picked by `provider` (the plugin's `sdkType`:
 * the simulated connector, which has no type of its own there, reads as the file-driven `Dummypay` one). The plugin's
 * secrets are never read back: `********` when set; absent members read as the plugin's `readDefaults` say (Generic's
 * `apiKey` is a string in the SDK, so an absent key reads as "").
 */
function readableConfig(r: Pick<ConnectorRow, 'provider' | 'config'>): Record<string, unknown> {
  const plugin = findConnectorPlugin(r.provider);
  const sdkType = plugin?.config.sdkType ?? r.provider.charAt(0).toUpperCase() + r.provider.slice(1);
  const config: Record<string, unknown> = { ...(plugin?.config.readDefaults ?? {}), ...r.config, provider: sdkType };
  for (const secret of plugin?.config.secrets ?? []) {
    if (r.config[secret]) config[secret] = REDACTED;
  }
  return config;
}
export const REDACTED = '********';

/** The stored row, installed or not. Throws NOT_FOUND. */
export async function getConnectorRow(db: Executor, id: string, options: { installed?: boolean } = {}): Promise<ConnectorRow> {
  const query = db('payments_connectors').where({ id });
  if (options.installed) query.whereNull('uninstalled_at');
  const row = await query.first();
  if (!row) throw notFound(`connector ${id} not found${options.installed ? ' or uninstalled' : ''}`);
  return row;
}

/**
 * Inside a transaction that writes a connector's provider data: whether the connector is still installed, holding its
 * row (FOR SHARE) until the transaction ends. A fetch reads the provider before its transaction; the lock orders its
 * write with an uninstall (whose update of the row waits for it), so no data is written after an uninstall committed.
 * The wait for the row is bounded (a config update holds it across a Temporal call): past it the statement fails with
 * 55P03 and the caller's activity is retried by Temporal.
 */
export async function lockInstalledConnector(trx: Executor, id: string): Promise<boolean> {
  await trx.raw(`SET LOCAL lock_timeout = '10s'`);
  const row = await trx('payments_connectors').where({ id }).whereNull('uninstalled_at').forShare().first('id');
  await trx.raw('SET LOCAL lock_timeout = DEFAULT');
  return row !== undefined;
}

/** The config as installed; its plugin's secrets are never read back. Throws NOT_FOUND. */
export async function getConnectorConfig(db: Executor, id: string): Promise<Record<string, unknown>> {
  return readableConfig(await getConnectorRow(db, id));
}

export async function listConnectors(db: Executor, page: PageRequest): Promise<Page<Connector>> {
  const rows = await keysetPage<ConnectorRow>(db('payments_connectors').select('*'), ['created_at', 'id'], 'desc', page);
  return { ...rows, items: rows.items.map(present) };
}

export const connectorKey = (c: Connector): unknown[] => [c.createdAt.toISOString(), c.id];
