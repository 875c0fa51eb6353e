import { notFound } from '../../lib/errors';
import type { Executor } from '../../db/knex';
import { keysetPage, type Page, type PageRequest } from '../../db/pagination';
import type { ConnectorConfig } from './connector-config';
import { providerLabel } from './enums';

export interface Connector {
  id: string;
  name: string;
  provider: string;
  createdAt: Date;
  installed: boolean;
  uninstalledAt?: Date;
}
export interface ConnectorRow { id: string; name: string; provider: string; config: ConnectorConfig; created_at: Date; uninstalled_at: Date | null }


const present = (r: ConnectorRow): Connector => ({
  id: r.id, name: r.name, provider: providerLabel(r.provider), createdAt: r.created_at, installed: r.uninstalled_at === null,
  ...(r.uninstalled_at ? { uninstalledAt: r.uninstalled_at } : {}),
});

/** The stored row, installed or not. Throws NOT_FOUND. */
export async function getConnectorRow(db: Executor, id: string, options: { installed?: boolean } = {}): Promise<ConnectorRow> {
  const query = db('payments_connectors').where({ id });
  if (options.installed) query.whereNull('uninstalled_at');
  const row = await query.first();
  if (!row) throw notFound(`connector ${id} not found${options.installed ? ' or uninstalled' : ''}`);
  return row;
}

/** The config as installed; a secret (the generic connector's apiKey) is never read back. Throws NOT_FOUND. */
export async function getConnectorConfig(db: Executor, id: string): Promise<ConnectorConfig> {
  const { config } = await getConnectorRow(db, id);
  return 'apiKey' in config && config.apiKey ? { ...config, apiKey: '********' } : config;
}

export async function listConnectors(db: Executor, page: PageRequest): Promise<Page<Connector>> {
  const rows = await keysetPage<ConnectorRow>(db('payments_connectors').select('*'), ['created_at', 'id'], 'desc', page);
  return { ...rows, items: rows.items.map(present) };
}

export const connectorKey = (c: Connector): unknown[] => [c.createdAt.toISOString(), c.id];
