import { ApiError, notFound, validationError } from '../../../lib/errors';
import { inTransaction } from '../../../db/errors';
import type { Db } from '../../../db/knex';
import { upsertAccounts, upsertBalances } from '../accounts/accounts';
import { upsertPayments } from '../payments/payments-upsert';
import { getConnectorState } from './connector-states';
import { getConnectorRow, lockInstalledConnector } from './connectors';
import type { ConnectorWebhooksState, WebhookEvent } from './plugin-contract';
import { findConnectorPlugin } from './plugin-registry';

/** The public path a provider posts a connector's events to (registered at install, CREATE_WEBHOOKS). */
export const webhookPath = (connectorID: string): string => `/api/payments/v3/connectors/webhooks/${encodeURIComponent(connectorID)}`;

/**
 * Receives one signed delivery for a connector (Formance's TRANSLATE_WEBHOOKS): the connector's plugin verifies it
 * (each provider signs its own way: Stripe's `Stripe-Signature` over the body, Adyen's basic auth and per-item HMAC)
 * against its config and the secrets the provider gave at CREATE_WEBHOOKS, before anything is stored. A refusal is
 * 401 (or 400 for a body the plugin cannot read) with nothing stored. The verified events are applied in one
 * transaction, each under its id: an event delivered again (providers retry until they get a 2xx) changes nothing,
 * and a delivery is never half applied.
 * Throws NOT_FOUND (unknown or uninstalled connector, or one whose plugin verifies no webhooks), UNAUTHORIZED, VALIDATION.
 */
export async function receiveConnectorWebhook(
  db: Db,
  connectorID: string,
  request: { rawBody: string | undefined; header: (name: string) => string | undefined },
): Promise<{ events: number; applied: number; changed: number }> {
  const row = await getConnectorRow(db, connectorID, { installed: true });
  const verify = findConnectorPlugin(row.provider)?.verifyWebhook;
  if (!verify) throw notFound(`connector ${connectorID} (${row.provider}) receives no webhooks`);
  const state = await getConnectorState<ConnectorWebhooksState>(db, connectorID, 'webhooks');
  const secrets = (state?.endpoints ?? []).map((e) => e.secret).filter((s): s is string => Boolean(s));
  const verdict = await verify({ config: row.config, secrets, rawBody: request.rawBody, header: request.header });
  if ('refused' in verdict) {
    throw verdict.refused === 'UNAUTHORIZED' ? new ApiError('UNAUTHORIZED', verdict.message) : validationError(verdict.message);
  }
  return applyWebhookEvents(db, connectorID, row.provider, verdict.events);
}

async function applyWebhookEvents(
  db: Db,
  connectorID: string,
  provider: string,
  events: WebhookEvent[],
): Promise<{ events: number; applied: number; changed: number }> {
  return inTransaction(db, async (trx) => {
    if (!(await lockInstalledConnector(trx, connectorID))) throw notFound(`connector ${connectorID} not found or uninstalled`);
    let applied = 0;
    let changed = 0;
    for (const event of events) {
      const claimed = await trx('payments_webhook_events')
        .insert({ connector_id: connectorID, event_id: event.id, type: event.type })
        .onConflict(['connector_id', 'event_id'])
        .ignore()
        .returning('event_id');
      if (claimed.length === 0) continue;
      applied += 1;
      if (event.accounts?.length) changed += await upsertAccounts(trx, connectorID, provider, event.accounts);
      if (event.balances?.length) changed += await upsertBalances(trx, connectorID, provider, event.balances);
      if (event.payments?.length) changed += (await upsertPayments(trx, connectorID, event.payments)).changed;
    }
    return { events: events.length, applied, changed };
  });
}
