import type { ConnectorPluginModule } from '../../../areas/payments';
import { mangopayPlugin } from './mangopay';
import { originOf } from './stripe-connector';

/** Mangopay (Formance's config): the client id and API key of the OAuth client credentials; `endpoint` its API base. */
export interface MangopayConfig {
  name: string;
  clientID: string;
  apiKey: string;
  endpoint: string;
  pollingPeriod: string;
}

/**
 * Formance's Mangopay plugin: users (FETCH_OTHERS) own the wallets (accounts) and bank accounts (external accounts).
 * Its hooks are unsigned GET callbacks, read back from Mangopay by a workflow (`translateWebhook`).
 */
export const mangopayConnector: ConnectorPluginModule = {
  name: 'mangopay',
  capabilities: [
    'FETCH_ACCOUNTS',
    'FETCH_BALANCES',
    'FETCH_EXTERNAL_ACCOUNTS',
    'FETCH_PAYMENTS',
    'FETCH_OTHERS',
    'CREATE_TRANSFER',
    'CREATE_PAYOUT',
    'CREATE_WEBHOOKS',
    'TRANSLATE_WEBHOOKS',
  ],
  receivesCallbacks: true,
  config: {
    example: {
      name: 'mangopay-main',
      clientID: 'marketplace-client',
      apiKey: 'mangopay-api-key',
      endpoint: 'https://api.mangopay.com',
      pollingPeriod: '2m',
    },
    schema: {
      properties: {
        clientID: { type: 'string', minLength: 1, maxLength: 200, description: "Mangopay's client id (the OAuth client credentials' user)." },
        apiKey: { type: 'string', minLength: 1, maxLength: 4096, description: "Mangopay's API key; never read back (reads as ********)." },
        endpoint: {
          type: 'string',
          format: 'uri',
          pattern: '^https?://',
          maxLength: 2048,
          description: 'The API base (an origin, no path): https://api.mangopay.com, or https://api.sandbox.mangopay.com.',
        },
      },
      required: ['clientID', 'apiKey', 'endpoint'],
    },
    secrets: ['apiKey'],
    normalize: (config) => ({ ...config, endpoint: originOf(config.endpoint, 'endpoint', 'https://api.mangopay.com') }),
  },
  create: (config, context) => mangopayPlugin(config as unknown as MangopayConfig, context.logger),
};
