import { ApiError, validationError } from '../../../lib/errors';
import type { TemporalDeps } from '../../../lib/temporal';
import { inTransaction } from '../../../db/errors';
import type { Db } from '../../../db/knex';
import { stringifyJson } from '../../../lib/json';
import { connectorConfigFields } from './connector-catalog';
import { normalizeConnectorConfig, pollingPeriodMs, type ConnectorProvider } from './connector-config';
import { getConnectorRow, REDACTED } from './connectors';
import { setConnectorPollingPeriod } from '../engine';

/**
 * Replaces an installed connector's config, as Formance's v3 update does (the whole config, in the install's shape;
 * `provider` and `pageSize` accepted and ignored). The next run of each schedule uses it; a new polling period is set
 * on the schedules inside the transaction, so a refusal from Temporal leaves the stored config unchanged. The name
 * cannot change (it is part of the connector's Temporal ids). A generic `apiKey` sent back as read (`********`) keeps
 * the stored key. Throws NOT_FOUND, VALIDATION, SERVICE_UNAVAILABLE.
 */
export async function updateConnectorConfig(
  deps: { db: Db; temporal: TemporalDeps; dataDir: string },
  id: string,
  body: Record<string, unknown>,
): Promise<void> {
  const row = await getConnectorRow(deps.db, id, { installed: true });
  const provider = row.provider as ConnectorProvider;
  const fields = connectorConfigFields()[provider];
  for (const key of Object.keys(body)) {
    if (key !== 'provider' && !(key in fields)) throw validationError(`body.${key}: not a field of the ${provider} connector's config`);
  }
  for (const [key, field] of Object.entries(fields)) {
    if (field.required && body[key] === undefined) throw validationError(`body.${key}: required by the ${provider} connector's config`);
  }
  if (body.name !== row.name) throw validationError(`body.name: a connector's name cannot change (it is "${row.name}")`);
  const raw = { ...body };
  if (raw.apiKey === REDACTED) raw.apiKey = 'apiKey' in row.config ? row.config.apiKey : undefined;
  if (raw.webhookSecret === REDACTED) raw.webhookSecret = 'webhookSecret' in row.config ? row.config.webhookSecret : undefined;
  if (raw.webhookPassword === REDACTED) raw.webhookPassword = 'webhookPassword' in row.config ? row.config.webhookPassword : undefined;
  // Formance's SDK has no `endpoint` in its Stripe or Adyen config type, so its updates never carry it: absent keeps the stored one.
  if ((provider === 'stripe' || provider === 'adyen') && raw.endpoint === undefined && 'endpoint' in row.config) raw.endpoint = row.config.endpoint;
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
