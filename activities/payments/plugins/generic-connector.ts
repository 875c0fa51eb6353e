import { DURATION_PATTERN, durationMs, type ConnectorPluginModule } from '../../../areas/payments';
import { genericHttpPlugin } from './generic-http';

export interface GenericConfig {
  name: string;
  endpoint: string;
  apiKey?: string;
  pollingPeriod: string;
  timeout: string;
}

/** Any provider implementing the generic REST contract (docs/payments.md): its data is the only source, no webhooks. */
export const genericConnector: ConnectorPluginModule = {
  name: 'generic',
  capabilities: [
    'FETCH_ACCOUNTS',
    'FETCH_BALANCES',
    'FETCH_EXTERNAL_ACCOUNTS',
    'FETCH_PAYMENTS',
    'CREATE_BANK_ACCOUNT',
    'CREATE_TRANSFER',
    'CREATE_PAYOUT',
  ],
  config: {
    example: { name: 'acme-psp', endpoint: 'https://psp.example.com', apiKey: 'sk_live_example', pollingPeriod: '2m', timeout: '10s' },
    schema: {
      properties: {
        endpoint: { type: 'string', format: 'uri', pattern: '^https?://', maxLength: 2048 },
        apiKey: { type: 'string', maxLength: 4096, description: 'Sent as Bearer token; never read back (reads as ******** when set).' },
        timeout: { type: 'string', pattern: DURATION_PATTERN, default: '10s', description: 'Per request, 100ms..60s.' },
      },
      required: ['endpoint'],
    },
    secrets: ['apiKey'],
    // Formance's SDK reads Generic's apiKey as a string: an absent key reads as "".
    readDefaults: { apiKey: '' },
    normalize: ({ apiKey, ...config }) => {
      durationMs(String(config.timeout ?? '10s'), 'timeout', 100, 60_000);
      return { ...config, endpoint: String(config.endpoint).replace(/\/+$/, ''), ...(apiKey ? { apiKey } : {}) };
    },
  },
  // v1's GenericConfig has no request timeout: a v1 update keeps the stored one rather than resetting it.
  v1: { keepOnUpdate: ['timeout'] },
  create: (config, context) => genericHttpPlugin(config as unknown as GenericConfig, context.logger),
};
