import Stripe from 'stripe';
import type { WebhookRequest, WebhookVerdict } from '../../../areas/payments';
import type { StripeConfig } from './stripe-connector';
import { stripeEventRows } from './stripe-mapping';

const unauthorized = (message: string): WebhookVerdict => ({ refused: 'UNAUTHORIZED', message });

/**
 * Verifies one Stripe event (Formance's TRANSLATE_WEBHOOKS): the `Stripe-Signature` header is checked with Stripe's
 * library against the connector's signing secrets (the configured `webhookSecret`, else those Stripe gave when the
 * connector registered its endpoints), within Stripe's 5-minute tolerance, before anything is read from the body. The
 * event's id makes it idempotent: Stripe retries a delivery until it gets a 2xx.
 */
export function verifyStripeWebhook(request: WebhookRequest): WebhookVerdict {
  const config = request.config as unknown as StripeConfig;
  const signature = request.header('Stripe-Signature');
  const secrets = [config.webhookSecret, ...request.secrets].filter((s): s is string => Boolean(s));
  if (!signature) return unauthorized('missing Stripe-Signature header');
  if (request.rawBody === undefined) return unauthorized('an event must have a body');
  if (secrets.length === 0) return unauthorized('no webhook signing secret is known for this connector');
  let event: Stripe.Event | undefined;
  for (const secret of secrets) {
    try {
      event = Stripe.webhooks.constructEvent(request.rawBody, signature, secret);
      break;
    } catch {
      // The next secret (the platform's and the Connect endpoint's events are signed with different ones).
    }
  }
  if (!event) return unauthorized('Stripe-Signature does not match the event (wrong secret, altered body or older than 5 minutes)');
  const rows = stripeEventRows(event as unknown as Parameters<typeof stripeEventRows>[0]);
  return { events: [{ id: event.id, type: event.type, accounts: rows.accounts, balances: rows.balances, payments: rows.payments }] };
}
