import { notFound, validationError } from '../../../lib/errors';
import type { TemporalDeps } from '../../../lib/temporal';
import type { Db } from '../../../db/knex';
import { receivesCallbacks } from './connector-catalog';
import { getConnectorRow } from './connectors';
import { startConnectorCallback } from '../engine';

const PARAM = /^[A-Za-z0-9_.:-]{1,100}$/;

/**
 * Receives an unsigned provider callback (Mangopay calls a hook's URL with GET `?EventType=…&RessourceId=…&Date=…`):
 * nothing in it is trusted, so it is not applied here but handed to a Temporal workflow whose plugin reads the resource
 * back from the provider (TRANSLATE_WEBHOOKS) and stores what the provider answers, once per event id. The query is
 * bounded (at most 10 parameters of letters, digits and `_.:-`) before it reaches Temporal. Throws NOT_FOUND (unknown,
 * uninstalled, or a connector whose provider sends no such callbacks), VALIDATION. @returns the Temporal workflow id (not a payments task).
 */
export async function receiveConnectorCallback(
  deps: { db: Db; temporal: TemporalDeps },
  connectorID: string,
  query: Record<string, unknown>,
): Promise<string> {
  const row = await getConnectorRow(deps.db, connectorID, { installed: true });
  if (!receivesCallbacks(row.provider)) throw notFound(`connector ${connectorID} does not receive ${row.provider} callbacks by GET`);
  const entries = Object.entries(query);
  if (entries.length === 0 || entries.length > 10) throw validationError('query: a callback has 1 to 10 parameters');
  const params: Record<string, string> = {};
  for (const [key, value] of entries) {
    if (!PARAM.test(key) || typeof value !== 'string' || !PARAM.test(value))
      throw validationError(`query.${PARAM.test(key) ? key : 'parameter'}: must be 1 to 100 letters, digits or _.:- (once)`);
    params[key] = value;
  }
  return startConnectorCallback(deps.temporal, row, params);
}
