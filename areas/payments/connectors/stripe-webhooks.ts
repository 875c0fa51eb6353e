import Stripe from 'stripe';
import { ApiError, notFound } from '../../../lib/errors';
import { inTransaction } from '../../../db/errors';
import type { Db } from '../../../db/knex';
import { upsertAccounts, upsertBalances } from '../accounts/accounts';
import type { StripeConfig } from './connector-config';
import { getConnectorState } from './connector-states';
import { getConnectorRow, lockInstalledConnector } from './connectors';
import { upsertPayments } from '../payments/payments-upsert';
import { stripeEventRows } from './stripe-mapping';

/** What the install task stores under the `webhooks` state: the endpoints registered at Stripe, with their secrets. */
export interface StripeWebhooksState {
  url: string;
  endpoints: Array<{ id: string; connect: boolean; secret?: string }>;
}

/** The public path Stripe posts a connector's events to (registered at install). */
export const webhookPath = (connectorID: string): string => `/api/payments/v3/connectors/webhooks/${encodeURIComponent(connectorID)}`;

const unauthorized = (message: string) => new ApiError('UNAUTHORIZED', message);

/**
 * Receives one Stripe event for a connector (Formance's TRANSLATE_WEBHOOKS): the `Stripe-Signature` header is
 * verified with Stripe's library against the connector's signing secrets (the configured `webhookSecret`, else those
 * Stripe gave when the connector registered its endpoints), within Stripe's 5-minute tolerance, before anything is
 * read from the body. A missing or wrong signature is 401 with nothing stored. A verified event is applied at once, in
 * one transaction with its id: an event Stripe delivers again (it retries until it gets a 2xx) is recognised by its id
 * and changes nothing. Throws NOT_FOUND (unknown, uninstalled or not a Stripe connector), UNAUTHORIZED.
 */
export async function receiveStripeWebhook(
  db: Db,
  connectorID: string,
  payload: string | undefined,
  signature: string | undefined,
): Promise<{ eventID: string; duplicate: boolean; changed: number }> {
  const row = await getConnectorRow(db, connectorID, { installed: true });
  if (row.provider !== 'stripe') throw notFound(`connector ${connectorID} does not receive Stripe events`);
  const config = row.config as StripeConfig;
  const state = await getConnectorState<StripeWebhooksState>(db, connectorID, 'webhooks');
  const secrets = [config.webhookSecret, ...(state?.endpoints ?? []).map((e) => e.secret)].filter((s): s is string => Boolean(s));
  if (!signature) throw unauthorized('missing Stripe-Signature header');
  if (payload === undefined) throw unauthorized('an event must have a body');
  if (secrets.length === 0) throw unauthorized('no webhook signing secret is known for this connector');
  let event: Stripe.Event | undefined;
  for (const secret of secrets) {
    try {
      event = Stripe.webhooks.constructEvent(payload, signature, secret);
      break;
    } catch {
      // The next secret (the platform's and the Connect endpoint's events are signed with different ones).
    }
  }
  if (!event) throw unauthorized('Stripe-Signature does not match the event (wrong secret, altered body or older than 5 minutes)');
  const rows = stripeEventRows(event as unknown as Parameters<typeof stripeEventRows>[0]);
  const eventID = event.id;
  return inTransaction(db, async (trx) => {
    if (!(await lockInstalledConnector(trx, connectorID))) throw notFound(`connector ${connectorID} not found or uninstalled`);
    const claimed = await trx('payments_webhook_events')
      .insert({ connector_id: connectorID, event_id: eventID, type: event!.type })
      .onConflict(['connector_id', 'event_id'])
      .ignore()
      .returning('event_id');
    if (claimed.length === 0) return { eventID, duplicate: true, changed: 0 };
    let changed = await upsertAccounts(trx, connectorID, 'stripe', rows.accounts);
    changed += await upsertBalances(trx, connectorID, 'stripe', rows.balances);
    changed += (await upsertPayments(trx, connectorID, rows.payments)).changed;
    return { eventID, duplicate: false, changed };
  });
}
