import { ApiError } from '../../lib/errors';
import type { TemporalDeps } from '../../lib/temporal';
import { inTransaction, isUniqueViolation } from '../../db/errors';
import type { Db } from '../../db/knex';
import { normalizeConnectorConfig, pollingPeriodMs, type ConnectorProvider } from './connector-config';
import { getConnectorRow } from './connectors';
import { cancelConnectorFetch, startConnectorFetch } from './engine';
import { connectorId } from './ids';
import { stringifyJson } from '../../lib/json';

/**
 * Installs a connector and starts its fetch workflow (`connector-<id>-fetch`, searchable in the Temporal UI by
 * PlatformArea = "payments" and ConnectorID). The row commits first so the workflow always finds it; if Temporal
 * refuses the start, the row is marked uninstalled again. Throws VALIDATION (config), CONFLICT (name in use),
 * SERVICE_UNAVAILABLE.
 */
export async function installConnector(
  deps: { db: Db; temporal: TemporalDeps; dataDir: string },
  provider: ConnectorProvider,
  rawConfig: Record<string, unknown>,
  options: { cyclesPerRun?: number } = {},
): Promise<string> {
  const config = normalizeConnectorConfig(provider, rawConfig, deps.dataDir);
  const id = connectorId(provider);
  await inTransaction(deps.db, (trx) => trx('payments_connectors').insert({ id, provider, name: config.name, config: stringifyJson(config) }))
    .catch((error) => {
      throw isUniqueViolation((error as ApiError).cause ?? error) || (error as ApiError).code === 'CONFLICT'
        ? new ApiError('CONFLICT', `a connector named "${config.name}" is already installed`)
        : error;
    });
  try {
    await startConnectorFetch(deps.temporal, { connectorID: id, pollingPeriodMs: pollingPeriodMs(config), ...(options.cyclesPerRun ? { cyclesPerRun: options.cyclesPerRun } : {}) });
  } catch (error) {
    await deps.db('payments_connectors').where({ id }).update({ uninstalled_at: deps.db.fn.now() });
    throw new ApiError('SERVICE_UNAVAILABLE', 'could not start the connector on Temporal; nothing was installed', { cause: error });
  }
  return id;
}

/**
 * Uninstalls a connector: marks it uninstalled (its accounts, payments and history stay readable) and cancels its
 * fetch workflow. Uninstalling twice is accepted. Throws NOT_FOUND.
 */
export async function uninstallConnector(deps: { db: Db; temporal: TemporalDeps }, id: string): Promise<void> {
  await getConnectorRow(deps.db, id);
  await deps.db('payments_connectors').where({ id }).whereNull('uninstalled_at').update({ uninstalled_at: deps.db.fn.now() });
  await cancelConnectorFetch(deps.temporal, id);
}
