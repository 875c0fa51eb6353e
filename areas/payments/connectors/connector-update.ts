import { ApiError, validationError } from '../../../lib/errors';
import type { TemporalDeps } from '../../../lib/temporal';
import { inTransaction } from '../../../db/errors';
import type { Db } from '../../../db/knex';
import { stringifyJson } from '../../../lib/json';
import { normalizeConnectorConfig, pollingPeriodMs } from './connector-config';
import { connectorPlugin } from './plugin-registry';
import { getConnectorRow, REDACTED } from './connectors';
import { setConnectorPollingPeriod } from '../engine';

/**
 * Replaces an installed connector's config, as Formance's v3 update does (the whole config, in the install's shape;
 * `provider` and `pageSize` accepted and ignored). The next run of each schedule uses it; a new polling period is set
 * on the schedules inside the transaction, so a refusal from Temporal leaves the stored config unchanged. The name
 * cannot change (it is part of the connector's Temporal ids). The plugin's secrets sent back as read (`********`) keep the stored value, and the members the plugin keeps
 * on update (absent from Formance's SDK config types) keep theirs when absent. Throws NOT_FOUND, VALIDATION, SERVICE_UNAVAILABLE.
 */
export async function updateConnectorConfig(
  deps: { db: Db; temporal: TemporalDeps; dataDir: string },
  id: string,
  body: Record<string, unknown>,
): Promise<void> {
  const row = await getConnectorRow(deps.db, id, { installed: true });
  const provider = row.provider;
  const plugin = connectorPlugin(provider);
  if (body.name !== undefined && body.name !== row.name) throw validationError(`body.name: a connector's name cannot change (it is "${row.name}")`);
  const raw = { ...body };
  const stored = row.config as Record<string, unknown>;
  for (const secret of plugin.config.secrets ?? []) {
    if (raw[secret] === REDACTED) raw[secret] = stored[secret];
  }
  for (const member of plugin.config.keepOnUpdate ?? []) {
    if (raw[member] === undefined && stored[member] !== undefined) raw[member] = stored[member];
  }
  const config = normalizeConnectorConfig(provider, raw, deps.dataDir);
  await inTransaction(deps.db, async (trx) => {
    await trx('payments_connectors').where({ id }).forUpdate().first();
    await trx('payments_connectors')
      .where({ id })
      .update({ config: stringifyJson(config) });
    if (pollingPeriodMs(config) === pollingPeriodMs(row.config)) return;
    await setConnectorPollingPeriod(deps.temporal, row, pollingPeriodMs(config)).catch((error) => {
      throw new ApiError('SERVICE_UNAVAILABLE', "could not update the connector's schedules on Temporal; the config is unchanged", { cause: error });
    });
  });
}
