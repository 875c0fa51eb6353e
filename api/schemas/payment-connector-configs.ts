import { DURATION_PATTERN } from '../../areas/payments';
import { ignoredParam, integerSchema, objectSchema, stringSchema } from './common';
import { shortText } from './payments';

/** Install and update bodies of each connector plugin (Formance's V3<Provider>Config, plus `endpoint` where ours has one). */

const pollingPeriod = stringSchema({ pattern: DURATION_PATTERN, default: '2m', description: 'e.g. 1s, 30s, 5m; between 1s and 24h.' });
/** Formance's clients always send these two (the SDK fills `pageSize` with 25); the plugins do not use them. */
const formanceConfigMembers = {
  provider: ignoredParam(stringSchema({ maxLength: 100, description: "The SDK's config type (e.g. Generic, Dummypay)." })),
  pageSize: ignoredParam(integerSchema({ minimum: 1 })),
};
const simulatedMembers = {
  name: shortText(200),
  directory: stringSchema({
    minLength: 1,
    maxLength: 4096,
    description: 'Inside DATA_DIR (relative paths resolve there) or PAYMENTS_SIMULATED_DIRS.',
  }),
  pollingPeriod,
};
const genericMembers = {
  name: shortText(200),
  endpoint: stringSchema({ format: 'uri', pattern: '^https?://', maxLength: 2048 }),
  apiKey: stringSchema({ maxLength: 4096, description: 'Sent as Bearer token; never read back (reads as ******** when set).' }),
  pollingPeriod,
  timeout: stringSchema({ pattern: DURATION_PATTERN, default: '10s', description: 'Per request, 100ms..60s.' }),
};
const stripeMembers = {
  name: shortText(200),
  apiKey: stringSchema({ minLength: 1, maxLength: 4096, description: 'A Stripe secret or restricted key; never read back (reads as ********).' }),
  pollingPeriod,
  endpoint: stringSchema({
    format: 'uri',
    pattern: '^https?://',
    maxLength: 2048,
    default: 'https://api.stripe.com',
    description: 'The API base (an origin, no path).',
  }),
  webhookSecret: stringSchema({
    maxLength: 4096,
    description: 'Signing secret of an endpoint registered by hand; by default the one Stripe gives at install. Reads as ********.',
  }),
};
const mangopayMembers = {
  name: shortText(200),
  clientID: stringSchema({ minLength: 1, maxLength: 200, description: "Mangopay's client id (the OAuth client credentials' user)." }),
  apiKey: stringSchema({ minLength: 1, maxLength: 4096, description: "Mangopay's API key; never read back (reads as ********)." }),
  pollingPeriod,
  endpoint: stringSchema({
    format: 'uri',
    pattern: '^https?://',
    maxLength: 2048,
    description: 'The API base (an origin, no path): https://api.mangopay.com, or https://api.sandbox.mangopay.com.',
  }),
};
export const mangopayConfigSchema = objectSchema({ ...mangopayMembers, ...formanceConfigMembers }, ['name', 'clientID', 'apiKey', 'endpoint']);
const adyenMembers = {
  name: shortText(200),
  apiKey: stringSchema({ minLength: 1, maxLength: 4096, description: 'An Adyen API key (X-API-Key) with Management API access; reads as ********.' }),
  companyID: stringSchema({
    minLength: 1,
    maxLength: 200,
    description: 'The company account: its merchant accounts are fetched, the webhook registered there.',
  }),
  liveEndpointPrefix: stringSchema({ maxLength: 200, description: "The live account's prefix; selects Adyen's live Management API." }),
  webhookUsername: stringSchema({ maxLength: 200, description: 'Basic-auth user Adyen sends with each notification (no ":").' }),
  webhookPassword: stringSchema({ maxLength: 4096, description: 'Basic-auth password Adyen sends with each notification; reads as ********.' }),
  pollingPeriod,
  endpoint: stringSchema({
    format: 'uri',
    pattern: '^https?://',
    maxLength: 2048,
    description: "The Management API's origin (no path); by default Adyen's test one, or its live one with liveEndpointPrefix.",
  }),
};
export const adyenConfigSchema = objectSchema({ ...adyenMembers, ...formanceConfigMembers }, ['name', 'apiKey', 'companyID']);
export const stripeConfigSchema = objectSchema({ ...stripeMembers, ...formanceConfigMembers }, ['name', 'apiKey']);
export const simulatedConfigSchema = objectSchema({ ...simulatedMembers, ...formanceConfigMembers }, ['name', 'directory']);
export const genericConfigSchema = objectSchema({ ...genericMembers, ...formanceConfigMembers }, ['name', 'endpoint']);
/** Any plugin's config; the connector's own plugin decides which members it takes (the others are 400). */
export const connectorConfigUpdateSchema = objectSchema(
  { ...simulatedMembers, ...stripeMembers, ...adyenMembers, ...genericMembers, ...mangopayMembers, ...formanceConfigMembers },
  ['name'],
);
