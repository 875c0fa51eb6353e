import { validationError } from '../../../lib/errors';
import { CONNECTOR_PROVIDERS, type ConnectorProvider } from './connector-config';

/** Formance's capability names (payments v3 `V3Capability`). */
export const CAPABILITIES = [
  'FETCH_ACCOUNTS',
  'FETCH_BALANCES',
  'FETCH_EXTERNAL_ACCOUNTS',
  'FETCH_PAYMENTS',
  'FETCH_OTHERS',
  'FETCH_ORDERS',
  'FETCH_CONVERSIONS',
  'CREATE_WEBHOOKS',
  'TRANSLATE_WEBHOOKS',
  'CREATE_BANK_ACCOUNT',
  'CREATE_TRANSFER',
  'CREATE_PAYOUT',
  'ALLOW_FORMANCE_ACCOUNT_CREATION',
  'ALLOW_FORMANCE_PAYMENT_CREATION',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

/**
 * What each plugin implements (activities/payments/plugins): both fetch the three kinds and execute every write. The
 * simulated provider, a demo, also takes accounts and payments recorded by clients (Formance's manual records); the
 * generic one's provider is the only source of its data.
 */
const PROVIDER_CAPABILITIES: Record<ConnectorProvider, Capability[]> = {
  simulated: [
    'FETCH_ACCOUNTS',
    'FETCH_BALANCES',
    'FETCH_EXTERNAL_ACCOUNTS',
    'FETCH_PAYMENTS',
    'CREATE_BANK_ACCOUNT',
    'CREATE_TRANSFER',
    'CREATE_PAYOUT',
    'ALLOW_FORMANCE_ACCOUNT_CREATION',
    'ALLOW_FORMANCE_PAYMENT_CREATION',
    'FETCH_CONVERSIONS',
    'FETCH_ORDERS',
  ],
  generic: [
    'FETCH_ACCOUNTS',
    'FETCH_BALANCES',
    'FETCH_EXTERNAL_ACCOUNTS',
    'FETCH_PAYMENTS',
    'CREATE_BANK_ACCOUNT',
    'CREATE_TRANSFER',
    'CREATE_PAYOUT',
  ],
  // Formance's Stripe plugin lists the fetches and both writes; webhooks are registered and translated here as well.
  stripe: [
    'FETCH_ACCOUNTS',
    'FETCH_BALANCES',
    'FETCH_EXTERNAL_ACCOUNTS',
    'FETCH_PAYMENTS',
    'CREATE_TRANSFER',
    'CREATE_PAYOUT',
    'CREATE_WEBHOOKS',
    'TRANSLATE_WEBHOOKS',
  ],
  // Formance's Mangopay plugin: users (FETCH_OTHERS) own the wallets (accounts) and bank accounts (external accounts).
  mangopay: [
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
  // As Formance's Adyen plugin: merchant accounts, and payments from Adyen's standard notifications only.
  adyen: ['FETCH_ACCOUNTS', 'CREATE_WEBHOOKS', 'TRANSLATE_WEBHOOKS'],
};

/**
 * The kinds of data a connector polls, one Temporal schedule each, and the capability behind each. External accounts
 * come with the accounts (a provider lists both in one answer), so they have no schedule of their own.
 */
export const FETCH_KINDS = ['accounts', 'balances', 'payments', 'conversions', 'orders'] as const;
export type FetchKind = (typeof FETCH_KINDS)[number];
const KIND_CAPABILITY: Record<FetchKind, Capability> = {
  accounts: 'FETCH_ACCOUNTS',
  balances: 'FETCH_BALANCES',
  payments: 'FETCH_PAYMENTS',
  conversions: 'FETCH_CONVERSIONS',
  orders: 'FETCH_ORDERS',
};

/**
 * Operations a plugin may lack that Formance's V3Capability has no name for (its plugins answer "not implemented" to
 * ReverseTransfer / ReversePayout): checked like capabilities, named in the refusal, never listed on the wire (the
 * SDK's capability enum is closed). The generic REST contract has no reversal endpoint.
 */
export type OperationCapability = 'REVERSE_TRANSFER' | 'REVERSE_PAYOUT';
// Stripe reverses transfers (transfer reversals); a payout cannot be taken back through its API once sent.
const PROVIDER_OPERATIONS: Record<ConnectorProvider, OperationCapability[]> = {
  simulated: ['REVERSE_TRANSFER', 'REVERSE_PAYOUT'],
  generic: [],
  stripe: ['REVERSE_TRANSFER'],
  mangopay: [],
  adyen: [],
};

/**
 * Providers whose webhooks are unsigned GET callbacks (Mangopay's): the webhook route hands them to a workflow that
 * reads the resource back (connector-callbacks.ts). Signed ones (Stripe's) are verified and applied by the route.
 */
const CALLBACK_PROVIDERS: readonly string[] = ['mangopay'];
export const receivesCallbacks = (provider: string): boolean => CALLBACK_PROVIDERS.includes(provider);

export function capabilitiesOf(provider: string): Capability[] {
  return PROVIDER_CAPABILITIES[provider as ConnectorProvider] ?? [];
}

export function fetchKindsOf(provider: string): FetchKind[] {
  const capabilities = capabilitiesOf(provider);
  return FETCH_KINDS.filter((kind) => capabilities.includes(KIND_CAPABILITY[kind]));
}

/** Throws 400 VALIDATION naming the capability when the connector's plugin lacks it. */
export function requireCapability(connector: { id: string; provider: string }, capability: Capability | OperationCapability): void {
  const has: string[] = [...capabilitiesOf(connector.provider), ...(PROVIDER_OPERATIONS[connector.provider as ConnectorProvider] ?? [])];
  if (!has.includes(capability)) {
    throw validationError(`connector ${connector.id} (${connector.provider}) does not have the capability ${capability}`);
  }
}

export function allCapabilities(): Record<string, Capability[]> {
  return Object.fromEntries(CONNECTOR_PROVIDERS.map((provider) => [provider, capabilitiesOf(provider)]));
}

interface ConfigField {
  dataType: 'string' | 'duration' | 'integer';
  required: boolean;
  defaultValue?: string;
}

const common: Record<string, ConfigField> = {
  name: { dataType: 'string', required: true },
  pollingPeriod: { dataType: 'duration', required: false, defaultValue: '2m' },
  pageSize: { dataType: 'integer', required: false, defaultValue: '25' },
};

/** The config fields of each plugin, as Formance's listConnectorConfigs describes them (`pageSize` is accepted, unused). */
export function connectorConfigFields(): Record<ConnectorProvider, Record<string, ConfigField>> {
  return {
    simulated: { ...common, directory: { dataType: 'string', required: true } },
    generic: {
      ...common,
      endpoint: { dataType: 'string', required: true },
      apiKey: { dataType: 'string', required: false },
      timeout: { dataType: 'duration', required: false, defaultValue: '10s' },
    },
    stripe: {
      ...common,
      apiKey: { dataType: 'string', required: true },
      endpoint: { dataType: 'string', required: false, defaultValue: 'https://api.stripe.com' },
      webhookSecret: { dataType: 'string', required: false },
    },
    mangopay: {
      ...common,
      clientID: { dataType: 'string', required: true },
      apiKey: { dataType: 'string', required: true },
      endpoint: { dataType: 'string', required: true },
    },
    adyen: {
      ...common,
      apiKey: { dataType: 'string', required: true },
      companyID: { dataType: 'string', required: true },
      liveEndpointPrefix: { dataType: 'string', required: false },
      webhookUsername: { dataType: 'string', required: false },
      webhookPassword: { dataType: 'string', required: false },
      endpoint: { dataType: 'string', required: false, defaultValue: 'https://management-test.adyen.com' },
    },
  };
}

/**
 * Formance's open-banking plugin capabilities (payments' later `models.Capability` values). They are not in the lists
 * `getConnectorCapabilities` answers: the SDK's `V3Capability` is a closed enum that would refuse them.
 */
export const OPEN_BANKING_CAPABILITIES = [
  'CREATE_USER',
  'CREATE_USER_LINK',
  'COMPLETE_USER_LINK',
  'UPDATE_USER_LINK',
  'COMPLETE_UPDATE_USER_LINK',
  'DELETE_USER',
  'DELETE_USER_CONNECTION',
] as const;
export type OpenBankingCapability = (typeof OPEN_BANKING_CAPABILITIES)[number];
const PROVIDER_OPEN_BANKING: Record<ConnectorProvider, readonly OpenBankingCapability[]> = {
  simulated: OPEN_BANKING_CAPABILITIES,
  generic: [],
  stripe: [],
  mangopay: [],
  adyen: [],
};

/** Throws 400 VALIDATION naming the open-banking capability when the connector's plugin lacks it. */
export function requireOpenBankingCapability(connector: { id: string; provider: string }, capability: OpenBankingCapability): void {
  if (!(PROVIDER_OPEN_BANKING[connector.provider as ConnectorProvider] ?? []).includes(capability)) {
    throw validationError(`connector ${connector.id} (${connector.provider}) does not have the capability ${capability}`);
  }
}
