import { receiveConnectorCallback, receiveConnectorWebhook } from '../../../areas/payments';
import { openRoute } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { defineRoute } from '../../routing';
import { dataOf, objectSchema, stringSchema } from '../../schemas/common';
import { idParams } from '../../schemas/payments';
import { tags, temporalOf } from './common';

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
      "Verified by the connector's plugin (its `verifyWebhook`). Stripe: the body as Stripe sent it, signed in `Stripe-Signature`. Adyen: a standard notification, with the basic auth set on the webhook and each item signed in `additionalData.hmacSignature`. Applied at once; an event already applied changes nothing.",
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

const token = (description: string) => stringSchema({ pattern: '^[A-Za-z0-9_.:-]{1,100}$', description });
const callbackQuery = objectSchema(
  {
    EventType: token('The event type (e.g. PAYOUT_NORMAL_SUCCEEDED).'),
    RessourceId: token("The resource's id at the provider (Mangopay's spelling)."),
    Date: token('The event time, Unix seconds.'),
  },
  ['EventType', 'RessourceId', 'Date'],
);

/**
 * The same path for providers whose webhooks are unsigned GET callbacks (Mangopay's `?EventType=…&RessourceId=…&Date=…`).
 * Open as the POST is; nothing in the callback is trusted: a workflow reads the resource back from the provider before
 * anything is stored. Answers 200 with the workflow's id once it is started (Mangopay retries until it gets a 200).
 */
export const connectorCallbackRoute = defineRoute(
  {
    method: 'get',
    path: '/api/payments/v3/connectors/webhooks/{connectorID}',
    operationId: 'receiveConnectorCallback',
    summary: "Receive a provider's unsigned callback (public; the resource is read back from the provider)",
    tags,
    description:
      'Mangopay: `EventType`, `RessourceId` and `Date` in the query. A workflow reads the resource from Mangopay and stores it once per event.',
    responses: { 200: { description: 'Accepted: the id of the Temporal workflow that reads the resource back', schema: dataOf({ type: 'string' }) } },
  },
  openRoute(),
  validate({ params: idParams('connectorID'), query: callbackQuery }),
  async function receiveConnectorCallbackHandler(ctx) {
    const deps = { db: ctx.deps.db, temporal: temporalOf(ctx) };
    ctx.status = 200;
    ctx.body = { data: await receiveConnectorCallback(deps, ctx.state.input.params.connectorID, ctx.state.input.query) };
  },
);

export const connectorWebhookRoutes = [connectorWebhookRoute, connectorCallbackRoute];
