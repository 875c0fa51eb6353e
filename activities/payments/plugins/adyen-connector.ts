import { configError, type ConnectorPluginModule } from '../../../areas/payments';
import { adyenPlugin } from './adyen';
import { verifyAdyenWebhook } from './adyen-webhooks';
import { originOf } from './stripe-connector';

/**
 * Adyen (Formance's `V3AdyenConfig` plus `endpoint`): `companyID` is the company account whose merchant accounts are
 * fetched and where the webhook is registered; `endpoint` is the Management API's origin (Adyen's test one, or the live
 * one when `liveEndpointPrefix` is set, by default; a fake in tests). `webhookUsername` / `webhookPassword` are the
 * basic-auth credentials Adyen sends with each notification (set on the webhook at registration).
 */
export interface AdyenConfig {
  name: string;
  apiKey: string;
  companyID: string;
  liveEndpointPrefix?: string;
  webhookUsername?: string;
  webhookPassword?: string;
  endpoint: string;
  pollingPeriod: string;
}
export const ADYEN_MANAGEMENT_TEST = 'https://management-test.adyen.com';
export const ADYEN_MANAGEMENT_LIVE = 'https://management-live.adyen.com';

function normalizeAdyenConfig(config: Record<string, unknown>): Record<string, unknown> {
  const live = typeof config.liveEndpointPrefix === 'string' && config.liveEndpointPrefix !== '' ? config.liveEndpointPrefix : undefined;
  const endpoint = originOf(config.endpoint ?? (live ? ADYEN_MANAGEMENT_LIVE : ADYEN_MANAGEMENT_TEST), 'endpoint', ADYEN_MANAGEMENT_TEST);
  // RFC 7617: the user-id of basic auth cannot contain a colon. Both or neither, or no notification could ever pass.
  if (typeof config.webhookUsername === 'string' && config.webhookUsername.includes(':'))
    throw configError('webhookUsername', 'must not contain ":" (basic auth)');
  if (Boolean(config.webhookUsername) !== Boolean(config.webhookPassword))
    throw configError('webhookPassword', 'webhookUsername and webhookPassword go together');
  return {
    name: config.name,
    apiKey: config.apiKey,
    companyID: config.companyID,
    ...(live ? { liveEndpointPrefix: live } : {}),
    ...(config.webhookUsername ? { webhookUsername: config.webhookUsername, webhookPassword: config.webhookPassword } : {}),
    endpoint,
    pollingPeriod: config.pollingPeriod,
  };
}

/** As Formance's Adyen plugin: merchant accounts, and payments from Adyen's standard notifications only. */
export const adyenConnector: ConnectorPluginModule = {
  name: 'adyen',
  capabilities: ['FETCH_ACCOUNTS', 'CREATE_WEBHOOKS', 'TRANSLATE_WEBHOOKS'],
  config: {
    example: {
      name: 'adyen-main',
      apiKey: 'AQE_example_key',
      companyID: 'MyCompany',
      webhookUsername: 'adyen',
      webhookPassword: 'example-password',
      pollingPeriod: '5m',
    },
    schema: {
      properties: {
        apiKey: {
          type: 'string',
          minLength: 1,
          maxLength: 4096,
          description: 'An Adyen API key (X-API-Key) with Management API access; reads as ********.',
        },
        companyID: {
          type: 'string',
          minLength: 1,
          maxLength: 200,
          description: 'The company account: its merchant accounts are fetched, the webhook registered there.',
        },
        liveEndpointPrefix: { type: 'string', maxLength: 200, description: "The live account's prefix; selects Adyen's live Management API." },
        webhookUsername: { type: 'string', maxLength: 200, description: 'Basic-auth user Adyen sends with each notification (no ":").' },
        webhookPassword: {
          type: 'string',
          maxLength: 4096,
          description: 'Basic-auth password Adyen sends with each notification; reads as ********.',
        },
        endpoint: {
          type: 'string',
          format: 'uri',
          pattern: '^https?://',
          maxLength: 2048,
          description: "The Management API's origin (no path); by default Adyen's test one, or its live one with liveEndpointPrefix.",
        },
      },
      required: ['apiKey', 'companyID'],
    },
    secrets: ['apiKey', 'webhookPassword'],
    keepOnUpdate: ['endpoint'],
    normalize: normalizeAdyenConfig,
  },
  create: (config) => adyenPlugin(config as unknown as AdyenConfig),
  verifyWebhook: verifyAdyenWebhook,
};
