import path from 'node:path';

/**
 * Every setting the processes read, in one place. Processes are configured only through environment variables so the
 * same build runs under `npm start`, docker-compose and a platform scheduler. The README lists each one.
 */
export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  /** Whether DATA_DIR, PORT or PUBLIC_URL was given: helper scripts otherwise look for a running `npm start`. */
  locationGiven: boolean;
  /** Where `npm start` records where it runs (RUN_FILE; .run/npm-start.json in the checkout by default). */
  runFile: string;
  databaseUrl?: string;
  temporalAddress?: string;
  temporalNamespace: string;
  taskQueue: string;
  logLevel: string;
  /** The Temporal SDK's own log level in the worker (TEMPORAL_LOG_LEVEL: TRACE, DEBUG, INFO, WARN, ERROR). */
  temporalLogLevel: 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  authIssuerUrl?: string;
  authAudience: string;
  /** Overrides the cursor signing key stored in PostgreSQL (db/platform-secrets.ts). */
  cursorSigningKey?: string;
  /** Whether the API answers `GET /metrics` on its own port, without a token (API_METRICS, `on` or `off`). */
  apiMetrics: boolean;
  /** Address the worker's metrics servers bind to (METRICS_HOST). */
  metricsHost: string;
  /** The worker's own `GET /metrics` port (WORKER_METRICS_PORT; 0 turns it off). */
  workerMetricsPort: number;
  /** The Temporal SDK's Prometheus exporter port in the worker (TEMPORAL_METRICS_PORT; 0 turns it off). */
  temporalMetricsPort: number;
  /** Days an audit record is kept (AUDIT_RETENTION_DAYS; 0 keeps them forever). */
  auditRetentionDays: number;
  /** OpenTelemetry tracing (the standard OTEL_* variables); undefined when no OTLP endpoint is set: no SDK starts. */
  tracing?: TracingSettings;
}

export interface TracingSettings {
  /** Where spans are POSTed: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, or OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  tracesUrl: string;
  /** OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL: `http/protobuf` (the OTel default) or `http/json`. */
  protocol: 'http/protobuf' | 'http/json';
  /** OTEL_EXPORTER_OTLP_(TRACES_)HEADERS: `key=value,key2=value2`, values URL-encoded (an API key of a hosted store). */
  headers: Record<string, string>;
  /** OTEL_SERVICE_NAME; each process's own name (`financial-platform-api`, `-worker`) when unset. */
  serviceName?: string;
  /** OTEL_RESOURCE_ATTRIBUTES: `key=value,...` added to every span's resource (deployment.environment, ...). */
  resourceAttributes: Record<string, string>;
  /** OTEL_TRACES_SAMPLER_ARG under the parent-based ratio sampler: the share of new traces recorded (1 by default). */
  sampleRatio: number;
}

function intFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function temporalLogLevel(raw: string | undefined): Config['temporalLogLevel'] {
  const level = (raw || 'WARN').toUpperCase();
  if (level === 'TRACE' || level === 'DEBUG' || level === 'INFO' || level === 'WARN' || level === 'ERROR') return level;
  throw new Error(`TEMPORAL_LOG_LEVEL must be TRACE, DEBUG, INFO, WARN or ERROR, got "${raw}"`);
}

function onOff(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'on' || raw === 'off') return raw === 'on';
  throw new Error(`${name} must be "on" or "off", got "${raw}"`);
}

/** A short key could be found offline by trying keys against any cursor a client holds (`openssl rand -base64 32` gives 44). */
const MIN_CURSOR_KEY_LENGTH = 32;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cursorSigningKey = env.CURSOR_SIGNING_KEY || undefined;
  if (cursorSigningKey !== undefined && cursorSigningKey.length < MIN_CURSOR_KEY_LENGTH) {
    throw new Error(`CURSOR_SIGNING_KEY must be at least ${MIN_CURSOR_KEY_LENGTH} characters long`);
  }
  const port = intFromEnv(env, 'PORT', 8080);
  const host = env.HOST || '127.0.0.1';
  const publicUrl = (env.PUBLIC_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/$/, '');
  return {
    port,
    host,
    publicUrl,
    dataDir: path.resolve(env.DATA_DIR || '.data'),
    locationGiven: Boolean(env.DATA_DIR || env.PORT || env.PUBLIC_URL),
    runFile: path.resolve(env.RUN_FILE || path.join(__dirname, '..', '.run', 'npm-start.json')),
    databaseUrl: env.DATABASE_URL || undefined,
    temporalAddress: env.TEMPORAL_ADDRESS || undefined,
    temporalNamespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: env.TEMPORAL_TASK_QUEUE || 'financial-platform',
    logLevel: env.LOG_LEVEL || 'info',
    temporalLogLevel: temporalLogLevel(env.TEMPORAL_LOG_LEVEL),
    authIssuerUrl: env.AUTH_ISSUER_URL || undefined,
    authAudience: env.AUTH_AUDIENCE || `${publicUrl}/api`,
    cursorSigningKey,
    apiMetrics: onOff(env, 'API_METRICS', true),
    metricsHost: env.METRICS_HOST || '127.0.0.1',
    workerMetricsPort: intFromEnv(env, 'WORKER_METRICS_PORT', 9464),
    temporalMetricsPort: intFromEnv(env, 'TEMPORAL_METRICS_PORT', 9465),
    auditRetentionDays: intFromEnv(env, 'AUDIT_RETENTION_DAYS', 90),
    tracing: tracingFromEnv(env),
  };
}

/** `key=value,key2=value2` with URL-encoded values (the OTel list format of headers and resource attributes). */
function keyValueList(env: NodeJS.ProcessEnv, name: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const item of (env[name] ?? '').split(',')) {
    if (item.trim() === '') continue;
    const at = item.indexOf('=');
    if (at <= 0) throw new Error(`${name} must be a list of key=value pairs separated by commas, got "${item.trim()}"`);
    try {
      result[item.slice(0, at).trim()] = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      throw new Error(`${name}: the value of "${item.slice(0, at).trim()}" is not valid URL encoding`);
    }
  }
  return result;
}

/**
 * Tracing is on when an OTLP endpoint is given and OTEL_SDK_DISABLED is not `true`. Only OTLP over HTTP is offered:
 * protobuf by default (the OTel default, and what a collector's port 4318 expects) or JSON; gRPC would add a second
 * HTTP/2 client stack to every process for the same collector port pair, so it is refused rather than ignored.
 */
function tracingFromEnv(env: NodeJS.ProcessEnv): TracingSettings | undefined {
  if ((env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true') return undefined;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
  const tracesEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || undefined;
  if (!base && !tracesEndpoint) return undefined;
  const tracesUrl = tracesEndpoint ?? `${(base as string).replace(/\/+$/, '')}/v1/traces`;
  try {
    const url = new URL(tracesUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new Error(`OTEL_EXPORTER_OTLP_${tracesEndpoint ? 'TRACES_' : ''}ENDPOINT must be an http:// or https:// URL, got "${tracesEndpoint ?? base}"`);
  }
  const protocolName = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = env[protocolName] || 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new Error(`${protocolName} must be "http/protobuf" or "http/json" (gRPC is not offered), got "${protocol}"`);
  }
  const sampler = env.OTEL_TRACES_SAMPLER || 'parentbased_traceidratio';
  if (sampler !== 'parentbased_traceidratio' && sampler !== 'parentbased_always_on') {
    throw new Error(`OTEL_TRACES_SAMPLER must be "parentbased_traceidratio" or "parentbased_always_on", got "${sampler}"`);
  }
  const ratioRaw = sampler === 'parentbased_traceidratio' ? env.OTEL_TRACES_SAMPLER_ARG : undefined;
  const sampleRatio = ratioRaw === undefined || ratioRaw === '' ? 1 : Number(ratioRaw);
  if (!(sampleRatio >= 0 && sampleRatio <= 1)) throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got "${ratioRaw}"`);
  return {
    tracesUrl,
    protocol,
    headers: { ...keyValueList(env, 'OTEL_EXPORTER_OTLP_HEADERS'), ...keyValueList(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS') },
    serviceName: env.OTEL_SERVICE_NAME || undefined,
    resourceAttributes: keyValueList(env, 'OTEL_RESOURCE_ATTRIBUTES'),
    sampleRatio,
  };
}

/** The settings a server process cannot run without; the supervisor fills them in for a local start. */
export function requireRuntime(config: Config): Config & { databaseUrl: string; temporalAddress: string } {
  const missing = [!config.databaseUrl && 'DATABASE_URL', !config.temporalAddress && 'TEMPORAL_ADDRESS'].filter(Boolean);
  if (missing.length > 0) throw new Error(`missing environment: ${missing.join(', ')} (npm start sets them for you)`);
  return config as Config & { databaseUrl: string; temporalAddress: string };
}
