import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { notFound, validationError } from '../../../lib/errors';
import { stringifyJson } from '../../../lib/json';
import { CAPABILITIES, DURATION_PATTERN, OPEN_BANKING_CAPABILITIES, PluginConfigError, type ConnectorPluginModule } from './plugin-contract';

/**
 * The connector plugins of this process, registered once at start by the API and the worker (built-in ones and those
 * of PAYMENTS_CONNECTOR_PLUGINS, activities/payments/plugins/index.ts). The area reads every provider-specific fact
 * from here; a provider nobody registered is unknown (an installed connector of a plugin no longer loaded answers 400
 * on the operations that need its plugin).
 */
interface Registered {
  module: ConnectorPluginModule;
  validate: ValidateFunction;
  schema: PluginBodySchema;
}
const registered = new Map<string, Registered>();

/** The JSON schema of a plugin's config body: its members and the platform's (name, pollingPeriod, provider, pageSize). */
export interface PluginBodySchema {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required: string[];
  additionalProperties: false;
}

const NAME = /^[a-z][a-z0-9-]{0,39}$/;
const PLATFORM_MEMBERS = ['name', 'pollingPeriod', 'provider', 'pageSize'];

/** The members the platform adds to every plugin's config. */
export const platformConfigMembers = (): Record<string, Record<string, unknown>> => ({
  name: { type: 'string', minLength: 1, maxLength: 200 },
  pollingPeriod: { type: 'string', pattern: DURATION_PATTERN, default: '2m', description: 'e.g. 1s, 30s, 5m; between 1s and 24h.' },
  provider: { type: 'string', maxLength: 100, 'x-ignored': true, description: "Formance's; accepted and ignored. The SDK's config type." },
  pageSize: { type: 'integer', minimum: 1, 'x-ignored': true, description: "Formance's; accepted and ignored." },
});

const ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: false });
addFormats(ajv);

/**
 * Checks a module against the contract and returns what is wrong with it (undefined when it holds): the error a
 * process starting with it reports.
 */
export function contractProblem(module: unknown): string | undefined {
  const m = module as Partial<ConnectorPluginModule> | undefined;
  if (!m || typeof m !== 'object') return 'does not export a connector plugin (an object)';
  if (typeof m.name !== 'string' || !NAME.test(m.name)) return 'name: must be 1 to 40 lower-case letters, digits or "-", starting with a letter';
  if (!Array.isArray(m.capabilities) || m.capabilities.some((c) => !(CAPABILITIES as readonly string[]).includes(c)))
    return `capabilities: must be a list of Formance's capability names (${CAPABILITIES.join(', ')})`;
  if (m.operations !== undefined && (!Array.isArray(m.operations) || m.operations.some((o) => o !== 'REVERSE_TRANSFER' && o !== 'REVERSE_PAYOUT')))
    return 'operations: must list only REVERSE_TRANSFER and REVERSE_PAYOUT';
  if (
    m.openBankingCapabilities !== undefined &&
    (!Array.isArray(m.openBankingCapabilities) ||
      m.openBankingCapabilities.some((c) => !(OPEN_BANKING_CAPABILITIES as readonly string[]).includes(c)))
  )
    return 'openBankingCapabilities: unknown capability';
  if (typeof m.create !== 'function') return 'create: must be a function (config, context) => plugin';
  if (m.verifyWebhook !== undefined && typeof m.verifyWebhook !== 'function') return 'verifyWebhook: must be a function';
  const properties = m.config?.schema?.properties;
  if (!properties || typeof properties !== 'object') return 'config.schema.properties: required (an object of JSON schemas)';
  const clash = Object.keys(properties).find((key) => PLATFORM_MEMBERS.includes(key));
  if (clash) return `config.schema.properties.${clash}: the platform's own member`;
  const declared = (list: unknown) => (Array.isArray(list) ? list : []).every((k) => typeof k === 'string' && k in properties);
  if (!declared(m.config?.schema.required)) return 'config.schema.required: names members the schema does not have';
  if (!declared(m.config?.secrets)) return 'config.secrets: names members the schema does not have';
  if (!declared(m.config?.keepOnUpdate)) return 'config.keepOnUpdate: names members the schema does not have';
  try {
    ajv.compile(bodySchemaOf(m as ConnectorPluginModule));
  } catch (error) {
    return `config.schema: not a valid JSON schema (${(error as Error).message})`;
  }
  return undefined;
}

function bodySchemaOf(module: ConnectorPluginModule): PluginBodySchema {
  return {
    type: 'object',
    properties: { ...platformConfigMembers(), ...module.config.schema.properties },
    required: ['name', ...(module.config.schema.required ?? [])],
    additionalProperties: false,
  };
}

/**
 * Registers plugins (at start). The same module again is accepted (both the API's and the worker's start paths may
 * register the built-in ones); another module under a registered name is an error, as is a module breaking the contract.
 */
export function registerConnectorPlugins(modules: ConnectorPluginModule[], source = 'plugin'): void {
  for (const module of modules) {
    const problem = contractProblem(module);
    if (problem) throw new Error(`${source}: ${problem}`);
    const existing = registered.get(module.name);
    if (existing) {
      if (existing.module === module) continue;
      throw new Error(`${source}: a connector plugin named "${module.name}" is already registered`);
    }
    const schema = bodySchemaOf(module);
    registered.set(module.name, { module, schema, validate: ajv.compile(schema) });
  }
}

/** The registered plugins, in registration order (built-in ones first). */
export const connectorPlugins = (): ConnectorPluginModule[] => [...registered.values()].map((r) => r.module);

/** The plugin of a provider, or undefined when no plugin of that name is loaded in this process. */
export const findConnectorPlugin = (provider: string): ConnectorPluginModule | undefined => registered.get(provider)?.module;

/** The plugin of a provider. Throws NOT_FOUND naming the loaded plugins. */
export function connectorPlugin(provider: string): ConnectorPluginModule {
  const found = registered.get(provider);
  if (!found) throw notFound(`no connector plugin named "${provider}" is loaded (loaded: ${[...registered.keys()].join(', ')})`);
  return found.module;
}

/** The install/update body schema of a plugin (the API's route schemas and the OpenAPI document are built from it). */
export const connectorConfigBodySchema = (provider: string): PluginBodySchema => {
  connectorPlugin(provider);
  return registered.get(provider)!.schema;
};

/**
 * A config body checked against its plugin's schema, then by the plugin's own `normalize`; the schema's defaults fill
 * what is still absent, and Formance's ignored members are dropped. Throws VALIDATION naming the field.
 */
export function validatePluginConfig(provider: string, body: Record<string, unknown>, dataDir: string): Record<string, unknown> {
  const module = connectorPlugin(provider);
  const { validate, schema } = registered.get(provider)!;
  if (!validate(body)) throw validationError(describe(provider, validate.errors));
  const { provider: _provider, pageSize: _pageSize, ...members } = body;
  let config: Record<string, unknown>;
  try {
    config = module.config.normalize ? module.config.normalize(members, { dataDir }) : members;
  } catch (error) {
    if (error instanceof PluginConfigError || (error as { field?: unknown })?.field !== undefined)
      throw validationError(`body.${(error as PluginConfigError).field}: ${(error as Error).message}`);
    throw error;
  }
  for (const [key, member] of Object.entries(schema.properties)) {
    if (config[key] === undefined && member.default !== undefined && key !== 'provider' && key !== 'pageSize') config[key] = member.default;
  }
  return config;
}

function describe(provider: string, errors: ErrorObject[] | null | undefined): string {
  const error = errors?.[0];
  if (!error) return 'body: invalid';
  const path = `body${error.instancePath.replace(/\//g, '.').replace(/\.(\d+)/g, '[$1]')}`;
  if (error.keyword === 'additionalProperties')
    return `body.${(error.params as { additionalProperty: string }).additionalProperty}: not a field of the ${provider} connector's config`;
  if (error.keyword === 'required')
    return `body.${(error.params as { missingProperty: string }).missingProperty}: required by the ${provider} connector's config`;
  if (error.keyword === 'enum') return `${path}: must be one of ${stringifyJson((error.params as { allowedValues: unknown[] }).allowedValues)}`;
  return `${path}: ${error.message ?? 'is invalid'}`;
}
