import { configError, type ConnectorPluginModule } from '../../../areas/payments';
import { stripePlugin } from './stripe';
import { verifyStripeWebhook } from './stripe-webhooks';

/**
 * Stripe: `endpoint` is the API base (Stripe's own by default; a stripe-mock in tests). `webhookSecret` is the signing
 * secret of an endpoint the operator registered (Stripe dashboard, `stripe listen`); without it the secret Stripe gave
 * when the connector registered its own endpoint at install is used.
 */
export interface StripeConfig {
  name: string;
  apiKey: string;
  endpoint: string;
  pollingPeriod: string;
  webhookSecret?: string;
}
export const STRIPE_API_BASE = 'https://api.stripe.com';

/** An http(s) origin without a trailing slash. Throws a config error naming `field`. */
export function originOf(value: unknown, field: string, example: string): string {
  const endpoint = String(value).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/?#]+$/.test(endpoint)) throw configError(field, `must be an http(s) origin such as ${example} (no path)`);
  return endpoint;
}

/** The Stripe connector (Formance's `stripe`): the fetches and both writes, transfer reversals, and signed webhooks. */
export const stripeConnector: ConnectorPluginModule = {
  name: 'stripe',
  capabilities: [
    'FETCH_ACCOUNTS',
    'FETCH_BALANCES',
    'FETCH_EXTERNAL_ACCOUNTS',
    'FETCH_PAYMENTS',
    'CREATE_TRANSFER',
    'CREATE_PAYOUT',
    'CREATE_WEBHOOKS',
    'TRANSLATE_WEBHOOKS',
  ],
  // Stripe reverses transfers (transfer reversals); a payout cannot be taken back through its API once sent.
  operations: ['REVERSE_TRANSFER'],
  config: {
    example: { name: 'stripe-main', apiKey: 'sk_live_example', pollingPeriod: '2m' },
    schema: {
      properties: {
        apiKey: {
          type: 'string',
          minLength: 1,
          maxLength: 4096,
          description: 'A Stripe secret or restricted key; never read back (reads as ********).',
        },
        endpoint: {
          type: 'string',
          format: 'uri',
          pattern: '^https?://',
          maxLength: 2048,
          default: STRIPE_API_BASE,
          description: 'The API base (an origin, no path).',
        },
        webhookSecret: {
          type: 'string',
          maxLength: 4096,
          description: 'Signing secret of an endpoint registered by hand; by default the one Stripe gives at install. Reads as ********.',
        },
      },
      required: ['apiKey'],
    },
    secrets: ['apiKey', 'webhookSecret'],
    // Formance's SDK has no `endpoint` in its Stripe config type, so its updates never carry it.
    keepOnUpdate: ['endpoint'],
    normalize: ({ webhookSecret, ...config }) => ({
      ...config,
      endpoint: originOf(config.endpoint ?? STRIPE_API_BASE, 'endpoint', STRIPE_API_BASE),
      ...(webhookSecret ? { webhookSecret } : {}),
    }),
  },
  create: (config) => stripePlugin(config as unknown as StripeConfig),
  verifyWebhook: verifyStripeWebhook,
};
