import { validationError } from '../../../lib/errors';
import {
  CAPABILITIES,
  DURATION_PATTERN,
  OPEN_BANKING_CAPABILITIES,
  type Capability,
  type OpenBankingCapability,
  type OperationCapability,
} from './plugin-contract';
import { connectorPlugins, findConnectorPlugin } from './plugin-registry';

export { CAPABILITIES, OPEN_BANKING_CAPABILITIES, type Capability, type OpenBankingCapability, type OperationCapability };

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
 * Providers whose webhooks are unsigned GET callbacks (Mangopay's): the webhook route hands them to a workflow that
 * reads the resource back (connector-callbacks.ts). Signed ones (Stripe's) are verified and applied by the route.
 */
export const receivesCallbacks = (provider: string): boolean => findConnectorPlugin(provider)?.receivesCallbacks === true;

/** The capabilities the provider's plugin declares (none when no such plugin is loaded). */
export function capabilitiesOf(provider: string): Capability[] {
  return [...(findConnectorPlugin(provider)?.capabilities ?? [])];
}

export function fetchKindsOf(provider: string): FetchKind[] {
  const capabilities = capabilitiesOf(provider);
  return FETCH_KINDS.filter((kind) => capabilities.includes(KIND_CAPABILITY[kind]));
}

/** Throws 400 VALIDATION naming the capability when the connector's plugin lacks it. */
export function requireCapability(connector: { id: string; provider: string }, capability: Capability | OperationCapability): void {
  const has: string[] = [...capabilitiesOf(connector.provider), ...(findConnectorPlugin(connector.provider)?.operations ?? [])];
  if (!has.includes(capability)) {
    throw validationError(`connector ${connector.id} (${connector.provider}) does not have the capability ${capability}`);
  }
}

export function allCapabilities(): Record<string, Capability[]> {
  return Object.fromEntries(connectorPlugins().map((plugin) => [plugin.name, capabilitiesOf(plugin.name)]));
}

interface ConfigField {
  dataType: 'string' | 'duration' | 'integer' | 'boolean';
  required: boolean;
  defaultValue?: string;
}

/** A config member as Formance's listConnectorConfigs describes it, from its JSON schema. */
function fieldOf(schema: Record<string, unknown>, required: boolean): ConfigField {
  const dataType =
    schema.type === 'integer' ? 'integer' : schema.type === 'boolean' ? 'boolean' : schema.pattern === DURATION_PATTERN ? 'duration' : 'string';
  return { dataType, required, ...(schema.default !== undefined ? { defaultValue: String(schema.default) } : {}) };
}

/**
 * The config fields of each plugin, as Formance's listConnectorConfigs describes them (`pageSize` is accepted, unused),
 * derived from each plugin's config schema.
 */
export function connectorConfigFields(): Record<string, Record<string, ConfigField>> {
  const common: Record<string, ConfigField> = {
    name: { dataType: 'string', required: true },
    pollingPeriod: { dataType: 'duration', required: false, defaultValue: '2m' },
    pageSize: { dataType: 'integer', required: false, defaultValue: '25' },
  };
  return Object.fromEntries(
    connectorPlugins().map((plugin) => {
      const required = plugin.config.schema.required ?? [];
      const own = Object.entries(plugin.config.schema.properties).map(([key, schema]) => [key, fieldOf(schema, required.includes(key))] as const);
      return [plugin.name, { ...common, ...Object.fromEntries(own) }];
    }),
  );
}

/** Throws 400 VALIDATION naming the open-banking capability when the connector's plugin lacks it. */
export function requireOpenBankingCapability(connector: { id: string; provider: string }, capability: OpenBankingCapability): void {
  if (!(findConnectorPlugin(connector.provider)?.openBankingCapabilities ?? []).includes(capability)) {
    throw validationError(`connector ${connector.id} (${connector.provider}) does not have the capability ${capability}`);
  }
}
