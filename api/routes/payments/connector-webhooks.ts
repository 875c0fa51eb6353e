import { receiveConnectorWebhook } from '../../../areas/payments';
import { openRoute } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { defineRoute } from '../../routing';
import { idParams } from '../../schemas/payments';
import { tags } from './common';

/**
 * Formance's webhook route: a provider posts its events here (the URL the connector registered at install). No bearer
 * token (the provider has none of ours): the guard is the provider's signature over the exact body, verified by the
 * area before anything is read. An event answers 204 once applied (or recognised as already applied).
 */
export const connectorWebhookRoute = defineRoute(
  {
    method: 'post',
    path: '/api/payments/v3/connectors/webhooks/{connectorID}',
    operationId: 'receiveConnectorWebhook',
    summary: "Receive a provider's signed event (public; guarded by the provider's signature)",
    tags,
    description:
      'Stripe: the body as Stripe sent it, signed in `Stripe-Signature`. Adyen: a standard notification, with the basic auth set on the webhook and each item signed in `additionalData.hmacSignature`. Applied at once; an event already applied changes nothing.',
    responses: { 204: { description: 'Applied, or already applied' }, 401: { description: 'Missing or wrong signature; nothing stored' } },
  },
  openRoute(),
  validate({ params: idParams('connectorID') }),
  async function receiveConnectorWebhookHandler(ctx) {
    await receiveConnectorWebhook(ctx.deps.db, ctx.state.input.params.connectorID, {
      rawBody: ctx.state.rawBody,
      header: (name) => ctx.get(name) || undefined,
    });
    ctx.status = 204;
  },
);

export const connectorWebhookRoutes = [connectorWebhookRoute];
