import { notFound } from '../../../lib/errors';
import type { Db } from '../../../db/knex';
import { receiveAdyenWebhook } from './adyen-webhooks';
import { getConnectorRow } from './connectors';
import { receiveStripeWebhook } from './stripe-webhooks';

/**
 * The webhook route's dispatch by the connector's provider: each provider signs its deliveries its own way (Stripe's
 * `Stripe-Signature` over the body, Adyen's basic auth and per-item HMAC), so each has its own receiver.
 * Throws NOT_FOUND (unknown or uninstalled connector, or one whose provider sends no webhooks), UNAUTHORIZED, VALIDATION.
 */
export async function receiveConnectorWebhook(
  db: Db,
  connectorID: string,
  request: { rawBody: string | undefined; header: (name: string) => string | undefined },
): Promise<void> {
  const row = await getConnectorRow(db, connectorID, { installed: true });
  if (row.provider === 'adyen') {
    await receiveAdyenWebhook(db, connectorID, request.rawBody, request.header('Authorization'));
    return;
  }
  if (row.provider === 'stripe') {
    await receiveStripeWebhook(db, connectorID, request.rawBody, request.header('Stripe-Signature'));
    return;
  }
  throw notFound(`connector ${connectorID} (${row.provider}) receives no webhooks`);
}
