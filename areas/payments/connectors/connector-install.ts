import { ApiError } from '../../../lib/errors';
import type { TemporalDeps } from '../../../lib/temporal';
import { inTransaction, isUniqueViolation } from '../../../db/errors';
import type { Db } from '../../../db/knex';
import { normalizeConnectorConfig, pollingPeriodMs, type ConnectorProvider } from './connector-config';
import { getConnectorRow } from './connectors';
import { clearFetchStates } from './connector-states';
import { createConnectorSchedules, deleteConnectorSchedules, startConnectorTask } from '../engine';
import { connectorId } from '../ids';
import { stringifyJson } from '../../../lib/json';

type Deps = { db: Db; temporal: TemporalDeps };
const unavailable = (what: string, cause: unknown) => new ApiError('SERVICE_UNAVAILABLE', what, { cause });

/**
 * Installs a connector: the row, then its Temporal schedules (one per kind of data, every polling period) and the
 * install task (`<label>-install`), which fetches everything once at once, accounts first. The row commits first so every run finds it; if Temporal refuses, the schedules made so far are
 * removed and the row is marked uninstalled again, so nothing half-installed remains. Throws VALIDATION (config),
 * CONFLICT (name in use), SERVICE_UNAVAILABLE.
 */
export async function installConnector(
  deps: Deps & { dataDir: string },
  provider: ConnectorProvider,
  rawConfig: Record<string, unknown>,
): Promise<string> {
  const config = normalizeConnectorConfig(provider, rawConfig, deps.dataDir);
  const id = connectorId(provider);
  await inTransaction(deps.db, (trx) => trx('payments_connectors').insert({ id, provider, name: config.name, config: stringifyJson(config) })).catch(
    (error) => {
      throw isUniqueViolation((error as ApiError).cause ?? error) || (error as ApiError).code === 'CONFLICT'
        ? new ApiError('CONFLICT', `a connector named "${config.name}" is already installed`)
        : error;
    },
  );
  const connector = { id, provider, name: config.name };
  try {
    await createConnectorSchedules(deps.temporal, connector, pollingPeriodMs(config));
    await startConnectorTask(deps.temporal, connector, 'install');
  } catch (error) {
    await deleteConnectorSchedules(deps.temporal, connector).catch(() => undefined);
    await deps.db('payments_connectors').where({ id }).update({ uninstalled_at: deps.db.fn.now() });
    throw unavailable("could not create the connector's schedules on Temporal; nothing was installed", error);
  }
  return id;
}

/**
 * Uninstalls a connector: marks it uninstalled at once (no fetch writes after the answer; its accounts, payments and
 * history stay readable) and starts the uninstall task, which deletes its schedules. Uninstalling twice is accepted and
 * runs the task again. If the task cannot start the mark is undone. Throws NOT_FOUND, SERVICE_UNAVAILABLE.
 * @returns the task id.
 */
export async function uninstallConnector(deps: Deps, id: string): Promise<string> {
  const row = await getConnectorRow(deps.db, id);
  const marked = await deps.db('payments_connectors').where({ id }).whereNull('uninstalled_at').update({ uninstalled_at: deps.db.fn.now() });
  try {
    return await startConnectorTask(deps.temporal, row, 'uninstall');
  } catch (error) {
    if (marked) await deps.db('payments_connectors').where({ id }).update({ uninstalled_at: null });
    throw unavailable('could not start the uninstall on Temporal; the connector is still installed', error);
  }
}

/**
 * Resets an installed connector: a task that recreates its schedules and fetches everything again from the provider.
 * Fetched rows are kept (initiations, pools and bank accounts refer to them) and upserted by reference, so the refetch
 * adds what changed and duplicates nothing. Throws NOT_FOUND (unknown or uninstalled), SERVICE_UNAVAILABLE.
 * @returns the task id.
 */
export async function resetConnector(deps: Deps, id: string): Promise<string> {
  const row = await getConnectorRow(deps.db, id, { installed: true });
  try {
    return await startConnectorTask(deps.temporal, row, 'reset');
  } catch (error) {
    throw unavailable('could not start the reset on Temporal', error);
  }
}

/** Worker side of the uninstall task. */
export async function removeConnectorSchedules(deps: Deps, id: string): Promise<void> {
  await deleteConnectorSchedules(deps.temporal, await getConnectorRow(deps.db, id));
}

/** Worker side of the reset task: the schedules again, unpaused, at the current polling period. */
export async function recreateConnectorSchedules(deps: Deps, id: string): Promise<void> {
  const row = await getConnectorRow(deps.db, id, { installed: true });
  await clearFetchStates(deps.db, id);
  await deleteConnectorSchedules(deps.temporal, row);
  await createConnectorSchedules(deps.temporal, row, pollingPeriodMs(row.config));
}
