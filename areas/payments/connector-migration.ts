import type { Db } from '../../db/knex';
import type { TemporalDeps } from '../../lib/temporal';
import { pollingPeriodMs } from './connector-config';
import type { ConnectorRow } from './connectors';
import { createConnectorSchedules, terminateLegacyFetch } from './engine';

/**
 * Run by each worker at start: every installed connector gets its schedules (an existing schedule is left as it is)
 * and the long-lived fetch workflow of the first releases, if one still runs, is terminated. A data directory from an
 * earlier release thus keeps fetching, with no orphan workflow. Cheap when there is nothing to do (a few calls per
 * connector). A schedule an operator deleted by hand comes back at the next worker start; pause it instead.
 * @returns how many legacy workflows were terminated; `onError` hears of each connector that could not be moved.
 */
export async function ensureConnectorSchedules(
  deps: { db: Db; temporal: TemporalDeps },
  onError: (connectorID: string, error: unknown) => void = () => undefined,
): Promise<number> {
  const rows: ConnectorRow[] = await deps.db('payments_connectors').whereNull('uninstalled_at').select('*');
  let migrated = 0;
  // One connector whose schedules cannot be made (a config an older release accepted) must not keep the others
  // from moving: it is reported and left for the next start.
  for (const row of rows) {
    try {
      await createConnectorSchedules(deps.temporal, row, pollingPeriodMs(row.config));
      if (await terminateLegacyFetch(deps.temporal, row.id)) migrated++;
    } catch (error) {
      onError(row.id, error);
    }
  }
  return migrated;
}
