import fs from 'node:fs';
import path from 'node:path';
import { getConfig } from '../../../lib/config';
import { validationError } from '../../../lib/errors';

/** The connector plugins the platform ships; the API installs them by these names. */
export const CONNECTOR_PROVIDERS = ['simulated', 'generic', 'stripe', 'mangopay', 'adyen'] as const;
export type ConnectorProvider = (typeof CONNECTOR_PROVIDERS)[number];

export interface SimulatedConfig {
  name: string;
  directory: string;
  pollingPeriod: string;
}
export interface GenericConfig {
  name: string;
  endpoint: string;
  apiKey?: string;
  pollingPeriod: string;
  timeout: string;
}
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
/** Mangopay (Formance's config): the client id and API key of the OAuth client credentials; `endpoint` its API base. */
export interface MangopayConfig {
  name: string;
  clientID: string;
  apiKey: string;
  endpoint: string;
  pollingPeriod: string;
}
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
export type ConnectorConfig = SimulatedConfig | GenericConfig | StripeConfig | MangopayConfig | AdyenConfig;

export const DURATION_PATTERN = '^[0-9]+(ms|s|m|h)$';
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `500ms`, `30s`, `2m`, `1h` in milliseconds; throws VALIDATION outside [min, max]. */
export function durationMs(value: string, field: string, min: number, max: number): number {
  const match = /^([0-9]+)(ms|s|m|h)$/.exec(value);
  const ms = match ? Number(match[1]) * UNIT_MS[match[2]] : NaN;
  if (!(ms >= min && ms <= max)) throw validationError(`body.${field}: must be a duration like "30s" between ${min} ms and ${max} ms`);
  return ms;
}

export const pollingPeriodMs = (config: ConnectorConfig): number => durationMs(config.pollingPeriod, 'pollingPeriod', 1000, 86_400_000);

/**
 * The simulated provider reads and writes files, so its directory is confined: it must exist and resolve (symlinks
 * included) inside DATA_DIR or one of the bases listed in PAYMENTS_SIMULATED_DIRS, so a client with payments:write
 * cannot make the worker read or write arbitrary paths. Both the API (at install) and the worker (at each use) check.
 */
export function resolveSimulatedDirectory(directory: string, dataDir: string, extraBases: string[] = getConfig().paymentsSimulatedDirs): string {
  const bases = [dataDir, ...extraBases];
  let real: string;
  try {
    real = fs.realpathSync(path.resolve(dataDir, directory));
    if (!fs.statSync(real).isDirectory()) throw new Error('not a directory');
  } catch {
    throw validationError(`body.directory: "${directory}" is not an existing directory`);
  }
  const allowed = bases.some((base) => {
    let realBase: string;
    try {
      realBase = fs.realpathSync(base);
    } catch {
      return false;
    }
    const relative = path.relative(realBase, real);
    return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
  });
  if (!allowed) throw validationError('body.directory: must be inside DATA_DIR or a directory listed in PAYMENTS_SIMULATED_DIRS');
  return real;
}

/** Validates what the schema cannot (durations, the directory) and returns the config to store. Throws VALIDATION. */
export function normalizeConnectorConfig(provider: ConnectorProvider, config: any, dataDir: string): ConnectorConfig {
  const pollingPeriod = config.pollingPeriod ?? '2m';
  durationMs(pollingPeriod, 'pollingPeriod', 1000, 86_400_000);
  if (provider === 'simulated') {
    return { name: config.name, directory: resolveSimulatedDirectory(config.directory, dataDir), pollingPeriod };
  }
  if (provider === 'stripe') {
    const endpoint = String(config.endpoint ?? STRIPE_API_BASE).replace(/\/+$/, '');
    if (!/^https?:\/\/[^/?#]+$/.test(endpoint))
      throw validationError('body.endpoint: must be an http(s) origin such as https://api.stripe.com (no path)');
    if (typeof config.apiKey !== 'string' || config.apiKey === '') throw validationError('body.apiKey: required by the stripe connector');
    return {
      name: config.name,
      apiKey: config.apiKey,
      endpoint,
      pollingPeriod,
      ...(config.webhookSecret ? { webhookSecret: config.webhookSecret } : {}),
    };
  }
  if (provider === 'mangopay') {
    const endpoint = String(config.endpoint ?? '').replace(/\/+$/, '');
    if (!/^https?:\/\/[^/?#]+$/.test(endpoint))
      throw validationError('body.endpoint: must be an http(s) origin such as https://api.mangopay.com (no path)');
    for (const field of ['clientID', 'apiKey'] as const)
      if (typeof config[field] !== 'string' || config[field] === '') throw validationError(`body.${field}: required by the mangopay connector`);
    return { name: config.name, clientID: config.clientID, apiKey: config.apiKey, endpoint, pollingPeriod };
  }
  if (provider === 'adyen') return normalizeAdyenConfig(config, pollingPeriod);
  const timeout = config.timeout ?? '10s';
  durationMs(timeout, 'timeout', 100, 60_000);
  return {
    name: config.name,
    endpoint: String(config.endpoint).replace(/\/+$/, ''),
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    pollingPeriod,
    timeout,
  };
}

function normalizeAdyenConfig(config: any, pollingPeriod: string): AdyenConfig {
  for (const field of ['apiKey', 'companyID'] as const) {
    if (typeof config[field] !== 'string' || config[field] === '') throw validationError(`body.${field}: required by the adyen connector`);
  }
  const live = typeof config.liveEndpointPrefix === 'string' && config.liveEndpointPrefix !== '' ? config.liveEndpointPrefix : undefined;
  const endpoint = String(config.endpoint ?? (live ? ADYEN_MANAGEMENT_LIVE : ADYEN_MANAGEMENT_TEST)).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/?#]+$/.test(endpoint))
    throw validationError('body.endpoint: must be an http(s) origin such as https://management-test.adyen.com (no path)');
  // RFC 7617: the user-id of basic auth cannot contain a colon. Both or neither, or no notification could ever pass.
  if (typeof config.webhookUsername === 'string' && config.webhookUsername.includes(':'))
    throw validationError('body.webhookUsername: must not contain ":" (basic auth)');
  if (Boolean(config.webhookUsername) !== Boolean(config.webhookPassword))
    throw validationError('body.webhookPassword: webhookUsername and webhookPassword go together');
  return {
    name: config.name,
    apiKey: config.apiKey,
    companyID: config.companyID,
    ...(live ? { liveEndpointPrefix: live } : {}),
    ...(config.webhookUsername ? { webhookUsername: config.webhookUsername, webhookPassword: config.webhookPassword } : {}),
    endpoint,
    pollingPeriod,
  };
}
