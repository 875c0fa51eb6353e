import net from 'node:net';
import { validationError } from '../../../lib/errors';
import { checkEndpointUrl, isAddressAllowed } from '../../../lib/webhooks/ssrf';
import { loadWebhookSettings } from '../../../lib/webhooks/settings';

/**
 * The exporter drivers this platform has, and their configurations. Formance has more (clickhouse, elasticsearch); an
 * exporter naming one of those is refused rather than stored and never run.
 */
const EXPORTER_DRIVERS = ['http', 'postgres', 'stdout', 'noop'] as const;
export type ExporterDriver = (typeof EXPORTER_DRIVERS)[number];

/** Formance's batching block: `maxItems` is the batch size here; `flushInterval` is accepted and ignored (see docs). */
export interface Batching {
  maxItems?: number;
  flushInterval?: string;
}

export interface HttpExporterConfig {
  url: string;
  batching?: Batching;
}

export interface PostgresExporterConfig {
  url: string;
  /** The target table, created when missing; `ledger_logs` by default. */
  table?: string;
  batching?: Batching;
}

/** `stdout` and `noop` take no settings but Formance's batching block. */
export interface PlainExporterConfig {
  batching?: Batching;
}

export type ExporterConfig = HttpExporterConfig | PostgresExporterConfig | PlainExporterConfig;

export const DEFAULT_BATCH_SIZE = 100;
export const MAX_BATCH_SIZE = 1000;
const TABLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const GO_DURATION = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/;
const MASK = '********';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function refuseUnknown(config: Record<string, unknown>, known: readonly string[], path: string): void {
  const unknown = Object.keys(config).find((key) => !known.includes(key));
  if (unknown !== undefined) throw validationError(`${path}.${unknown}: unknown member (allowed: ${known.join(', ')})`);
}

function checkBatching(value: unknown): Batching | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) throw validationError('body.config.batching: should be an object');
  refuseUnknown(value, ['maxItems', 'flushInterval'], 'body.config.batching');
  const { maxItems, flushInterval } = value;
  if (maxItems !== undefined && (typeof maxItems !== 'number' || !Number.isInteger(maxItems) || maxItems < 0 || maxItems > MAX_BATCH_SIZE)) {
    throw validationError(`body.config.batching.maxItems: should be an integer from 0 to ${MAX_BATCH_SIZE} (0: the default, ${DEFAULT_BATCH_SIZE})`);
  }
  if (flushInterval !== undefined && (typeof flushInterval !== 'string' || !GO_DURATION.test(flushInterval))) {
    throw validationError('body.config.batching.flushInterval: should be a duration such as "1s" or "500ms"');
  }
  return { ...(maxItems !== undefined ? { maxItems } : {}), ...(flushInterval !== undefined ? { flushInterval } : {}) };
}

function requireUrl(config: Record<string, unknown>): string {
  if (typeof config.url !== 'string' || config.url === '') throw validationError('body.config.url: required, a non-empty string');
  return config.url;
}

function checkPostgresUrl(text: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw validationError('body.config.url: should be a postgres:// URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw validationError('body.config.url: should be a postgres:// or postgresql:// URL');
  if (!url.hostname || url.pathname.length <= 1) throw validationError('body.config.url: should name a host and a database');
  // The same guard as webhooks: an exporter must not make the worker reach internal services the operator did not allow.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = net.isIP(host) !== 0 ? host : host === 'localhost' ? '127.0.0.1' : undefined;
  if (literal && !isAddressAllowed(literal, loadWebhookSettings().allowed)) {
    throw validationError(
      `body.config.url: refusing ${host}: address in a blocked range (loopback, private, link-local, reserved); see WEBHOOKS_ALLOWED_CIDRS`,
    );
  }
}

/** Checks a driver and its configuration. @throws ApiError VALIDATION naming the supported drivers or the bad member */
export function checkExporterConfig(driver: string, config: Record<string, unknown>): { driver: ExporterDriver; config: ExporterConfig } {
  if (driver === 'http') {
    refuseUnknown(config, ['url', 'batching'], 'body.config');
    const url = requireUrl(config);
    const problem = checkEndpointUrl(url, loadWebhookSettings().allowed);
    if (problem) throw validationError(`body.config.url: ${problem.replace(/^endpoint/, 'url')}`);
    const batching = checkBatching(config.batching);
    return { driver, config: { url, ...(batching ? { batching } : {}) } };
  }
  if (driver === 'postgres') {
    refuseUnknown(config, ['url', 'table', 'batching'], 'body.config');
    const url = requireUrl(config);
    checkPostgresUrl(url);
    if (config.table !== undefined && (typeof config.table !== 'string' || !TABLE_NAME.test(config.table))) {
      throw validationError('body.config.table: should be a lower-case SQL identifier (letters, digits, _; at most 63)');
    }
    const batching = checkBatching(config.batching);
    return { driver, config: { url, ...(config.table !== undefined ? { table: config.table as string } : {}), ...(batching ? { batching } : {}) } };
  }
  if (driver === 'stdout' || driver === 'noop') {
    refuseUnknown(config, ['batching'], 'body.config');
    const batching = checkBatching(config.batching);
    return { driver, config: batching ? { batching } : {} };
  }
  throw validationError(`body.driver: unsupported driver "${driver}"; supported drivers: ${EXPORTER_DRIVERS.join(', ')}`);
}

/** A configuration as the API shows it: a database password is never echoed. */
export function maskExporterConfig(driver: string, config: ExporterConfig): ExporterConfig {
  if (driver !== 'postgres' || !('url' in config)) return config;
  try {
    const url = new URL(config.url);
    if (url.password) url.password = MASK;
    return { ...config, url: url.toString() };
  } catch {
    return { ...config, url: MASK };
  }
}

export const batchSizeOf = (config: ExporterConfig): number => config.batching?.maxItems || DEFAULT_BATCH_SIZE;
