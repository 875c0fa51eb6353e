import path from 'node:path';
import { parseCidrList } from './webhooks/ssrf';
import {
  cidrs,
  decimal,
  directories,
  directory,
  flag,
  hostPort,
  integer,
  keyValues,
  milliseconds,
  modulePaths,
  oneOf,
  otelBoolean,
  port,
  ratio,
  setting,
  text,
  url,
  type Reader,
  type Setting,
} from './settings-kinds';

/**
 * Every setting the processes read, in one place: processes are configured only through environment variables, so
 * the same build runs under `npm start`, docker-compose and a platform scheduler. `SETTINGS` is the schema: each
 * variable's form, default, readers and meaning. `loadConfig` checks every variable at once and refuses the whole
 * environment when one is malformed, naming it and its expected form, so a typo stops the process at start instead of
 * silently falling back (`LEDGER_GROUP_COMMIT_MAX_BATCH=abc` would otherwise be no cap at all). docs/configuration.md
 * is generated from this schema (`npx tsx scripts/config-docs.ts`), and a unit test keeps the two equal. Nothing else in the
 * production folders reads `process.env` (an eslint rule).
 */

export type { Reader, Setting } from './settings-kinds';

const API: Reader[] = ['api'];
const WORKER: Reader[] = ['worker'];
const BOTH: Reader[] = ['api', 'worker'];
const START: Reader[] = ['start'];
const ALL: Reader[] = ['api', 'worker', 'start'];
const HOUR = 3_600_000;

/** The schema, one entry per variable, keyed by the name the code reads it under. */
export const SETTINGS = {
  // Where the processes run.
  port: setting('PORT', port, 8080, ['api', 'start'], 'HTTP port of the API.'),
  host: setting('HOST', text(), '127.0.0.1', ['api', 'start'], 'Interface the API listens on (`0.0.0.0` in containers).'),
  publicUrl: setting(
    'PUBLIC_URL',
    url(['http:', 'https:']),
    undefined,
    API,
    'External base URL; the embedded issuer is `${PUBLIC_URL}/api/auth`.',
    '`http://HOST:PORT`',
  ),
  dataDir: setting(
    'DATA_DIR',
    directory,
    '.data',
    ALL,
    "Data directory: PostgreSQL data, Temporal SQLite file, bootstrap client, simulated connectors' files.",
  ),
  runFile: setting(
    'RUN_FILE',
    directory,
    path.join(__dirname, '..', '.run', 'npm-start.json'),
    START,
    'Where `npm start` records its API URL, data directory and database while it runs (mode 0600, removed at stop), for `npm run token` and other scripts.',
    '`.run/npm-start.json` in the checkout',
  ),
  logLevel: setting(
    'LOG_LEVEL',
    oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    'info',
    ALL,
    "pino log level (`debug` also shows PostgreSQL's log under `npm start`).",
  ),
  // PostgreSQL.
  databaseUrl: setting(
    'DATABASE_URL',
    url(['postgres:', 'postgresql:']),
    undefined,
    ALL,
    'PostgreSQL URL. When unset, `npm start` runs an embedded PostgreSQL and sets it for its children.',
    'embedded',
  ),
  databasePoolMax: setting('DATABASE_POOL_MAX', integer(1, 10_000), 20, BOTH, 'Connection pool size per process.'),
  databaseAcquireTimeoutMs: setting(
    'DATABASE_ACQUIRE_TIMEOUT_MS',
    milliseconds,
    5000,
    BOTH,
    'How long a request waits for a connection before 503 `SERVICE_UNAVAILABLE`.',
  ),
  appName: setting('APP_NAME', text(), 'financial-platform', BOTH, "PostgreSQL `application_name` of the process's connections."),
  embeddedPostgresPort: setting('EMBEDDED_POSTGRES_PORT', port, 54329, START, 'Port of the embedded PostgreSQL.'),
  // Temporal.
  temporalAddress: setting(
    'TEMPORAL_ADDRESS',
    hostPort,
    undefined,
    ALL,
    'Temporal frontend. When unset, `npm start` runs the dev server and sets it for its children.',
    'dev server',
  ),
  temporalNamespace: setting('TEMPORAL_NAMESPACE', text(), 'default', BOTH, 'Temporal namespace.'),
  taskQueue: setting(
    'TEMPORAL_TASK_QUEUE',
    text(),
    'financial-platform',
    BOTH,
    'Task queue of the workflows and activities; webhook work runs on `<this>-webhooks`, polled by the same workers.',
  ),
  temporalLogLevel: setting(
    'TEMPORAL_LOG_LEVEL',
    oneOf(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'], { ignoreCase: true }),
    'WARN',
    WORKER,
    'Log level of the Temporal SDK core.',
  ),
  temporalPort: setting('TEMPORAL_PORT', port, 7233, START, 'gRPC port of the dev server.'),
  temporalUiPort: setting('TEMPORAL_UI_PORT', port, 8233, START, 'Web UI port of the dev server (0: no UI).'),
  // Authentication.
  authIssuerUrl: setting(
    'AUTH_ISSUER_URL',
    url(['http:', 'https:']),
    undefined,
    API,
    'Trust this external OAuth issuer instead of the embedded one.',
    'embedded',
  ),
  authAudience: setting('AUTH_AUDIENCE', text(), undefined, API, 'Required `aud` of access tokens.', '`${PUBLIC_URL}/api`'),
  authClientId: setting('AUTH_CLIENT_ID', text(), 'financial-platform-api', API, 'Client id presented during discovery of an external issuer.'),
  authAccessTokenTtl: setting('AUTH_ACCESS_TOKEN_TTL', integer(1, 365 * 24 * 3600), 3600, API, 'Lifetime (s) of tokens from the embedded issuer.'),
  cursorSigningKey: setting(
    'CURSOR_SIGNING_KEY',
    text(32),
    undefined,
    API,
    'Key that signs list cursors (e.g. `openssl rand -base64 32`; a shorter one could be found by trying keys). When unset, a random key kept in PostgreSQL (`platform_secrets`), shared by every replica. Every API process of a deployment must have the same value.',
    'stored',
  ),
  bootstrapClientId: setting(
    'BOOTSTRAP_CLIENT_ID',
    text(),
    undefined,
    START,
    'Id of the all-scopes client ensured at start (with `BOOTSTRAP_CLIENT_SECRET`).',
    'generated',
  ),
  bootstrapClientSecret: setting('BOOTSTRAP_CLIENT_SECRET', text(), undefined, START, 'Secret of that client.', 'generated'),
  // HTTP.
  trustProxy: setting('TRUST_PROXY', flag('true', 'false'), false, API, 'Trust `X-Forwarded-*` (behind a reverse proxy).'),
  httpKeepAliveTimeoutMs: setting(
    'HTTP_KEEP_ALIVE_TIMEOUT_MS',
    milliseconds,
    65_000,
    API,
    'How long an idle keep-alive connection stays open; keep it above the idle timeout of any load balancer in front.',
  ),
  httpHeadersTimeoutMs: setting(
    'HTTP_HEADERS_TIMEOUT_MS',
    milliseconds,
    20_000,
    API,
    "How long a request's headers may take to arrive, from its first byte (at most `HTTP_REQUEST_TIMEOUT_MS`); then 408.",
  ),
  httpRequestTimeoutMs: setting('HTTP_REQUEST_TIMEOUT_MS', milliseconds, 120_000, API, 'How long a whole request may take to arrive; then 408.'),
  rateLimitPerSecond: setting(
    'RATE_LIMIT_PER_SECOND',
    decimal(0),
    1000,
    API,
    'Requests per second per client (token bucket per API process); `0` disables the limit.',
  ),
  rateLimitBurst: setting('RATE_LIMIT_BURST', decimal(1), undefined, API, 'Burst of the per-client token bucket.', 'twice `RATE_LIMIT_PER_SECOND`'),
  // Observability.
  apiMetrics: setting(
    'API_METRICS',
    flag('on', 'off'),
    true,
    API,
    "Serve Prometheus metrics on the API's own port at `GET /metrics`, without a token.",
  ),
  metricsHost: setting('METRICS_HOST', text(), '127.0.0.1', WORKER, "Address the worker's metrics servers bind to."),
  workerMetricsPort: setting('WORKER_METRICS_PORT', port, 9464, WORKER, "Port of the worker's own `GET /metrics` (0: off)."),
  temporalMetricsPort: setting('TEMPORAL_METRICS_PORT', port, 9465, WORKER, "Port of the Temporal SDK's Prometheus exporter in the worker (0: off)."),
  auditRetentionDays: setting('AUDIT_RETENTION_DAYS', integer(0, 36_500), 90, WORKER, 'Days an audit-trail entry is kept (0: forever).'),
  // OpenTelemetry traces: the standard OTEL_* variables (docs/operations.md). Only OTLP over HTTP is offered: protobuf
  // (the OTel default, a collector's port 4318) or JSON; gRPC would add a second HTTP/2 client stack to every process
  // for the same collector, so it is refused rather than ignored.
  otelEndpoint: setting(
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    url(['http:', 'https:']),
    undefined,
    BOTH,
    'OTLP/HTTP base URL of a collector or trace store; spans go to `<this>/v1/traces`. Unset (and no traces endpoint): tracing is off and no OpenTelemetry code is loaded.',
    'off',
  ),
  otelTracesEndpoint: setting(
    'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    url(['http:', 'https:']),
    undefined,
    BOTH,
    'Full URL spans are POSTed to, instead of the one derived from `OTEL_EXPORTER_OTLP_ENDPOINT`.',
    '–',
  ),
  otelProtocol: setting('OTEL_EXPORTER_OTLP_PROTOCOL', oneOf(['http/protobuf', 'http/json']), 'http/protobuf', BOTH, 'OTLP encoding.'),
  otelTracesProtocol: setting(
    'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
    oneOf(['http/protobuf', 'http/json']),
    undefined,
    BOTH,
    'OTLP encoding of spans, instead of `OTEL_EXPORTER_OTLP_PROTOCOL`.',
    '–',
  ),
  otelHeaders: setting(
    'OTEL_EXPORTER_OTLP_HEADERS',
    keyValues,
    {} as Record<string, string>,
    BOTH,
    'Headers of every OTLP request (the API key of a hosted store).',
    '–',
  ),
  otelTracesHeaders: setting(
    'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
    keyValues,
    {} as Record<string, string>,
    BOTH,
    'Headers of span exports, added to `OTEL_EXPORTER_OTLP_HEADERS`.',
    '–',
  ),
  otelServiceName: setting('OTEL_SERVICE_NAME', text(), undefined, BOTH, '`service.name` of the spans.', '`financial-platform-api` / `-worker`'),
  otelResourceAttributes: setting(
    'OTEL_RESOURCE_ATTRIBUTES',
    keyValues,
    {} as Record<string, string>,
    BOTH,
    "Attributes added to every span's resource (`deployment.environment=staging`).",
    '–',
  ),
  otelTracesSampler: setting(
    'OTEL_TRACES_SAMPLER',
    oneOf(['parentbased_traceidratio', 'parentbased_always_on']),
    'parentbased_traceidratio',
    BOTH,
    'Sampler: an incoming sampled `traceparent` is always followed; new traces by ratio or always.',
  ),
  otelTracesSamplerArg: setting('OTEL_TRACES_SAMPLER_ARG', ratio, 1, BOTH, 'Share of new traces recorded under `parentbased_traceidratio`.'),
  otelSdkDisabled: setting('OTEL_SDK_DISABLED', otelBoolean, false, BOTH, '`true` turns tracing off whatever the endpoints say.'),
  // Payments.
  paymentsSimulatedDirs: setting(
    'PAYMENTS_SIMULATED_DIRS',
    directories,
    [] as string[],
    BOTH,
    'Directories (besides `DATA_DIR`) where simulated connectors may read and write their files.',
    '–',
  ),
  paymentsConnectorPlugins: setting(
    'PAYMENTS_CONNECTOR_PLUGINS',
    modulePaths,
    [] as string[],
    BOTH,
    "A team's own connector plugins, loaded besides the built-in ones by the API and the worker (give both the same list): " +
      'each module exports a plugin as `default` or `connectorPlugin` (docs/connectors-guide.md). A module that is missing ' +
      'or breaks the contract stops the process at start.',
    '–',
  ),
  // Events and the ledger.
  eventsPollIntervalMs: setting('EVENTS_POLL_INTERVAL_MS', milliseconds, 2000, WORKER, 'Outbox polling fallback behind LISTEN/NOTIFY.'),
  eventsBatchSize: setting('EVENTS_BATCH_SIZE', integer(1, 100_000), 500, WORKER, 'Most events in one `processEventBatch` workflow.'),
  eventsBatchIntervalMs: setting(
    'EVENTS_BATCH_INTERVAL_MS',
    integer(0),
    200,
    WORKER,
    'Least time (ms) between two outbox claims of a dispatcher: events committed meanwhile form the next batch.',
  ),
  ledgerGroupCommit: setting(
    'LEDGER_GROUP_COMMIT',
    flag('on', 'off'),
    true,
    BOTH,
    '`off` commits each ledger write in its own database transaction instead of group-committing concurrent writes to a ledger.',
  ),
  ledgerGroupCommitMaxBatch: setting('LEDGER_GROUP_COMMIT_MAX_BATCH', integer(1, 100_000), 256, BOTH, 'Most writes one group commit takes.'),
  ledgerLogsHashIntervalMs: setting(
    'LEDGER_LOGS_HASH_INTERVAL_MS',
    integer(0),
    200,
    WORKER,
    'Least time (ms) between two passes of the ledger log hasher.',
  ),
  ledgerLogsPollIntervalMs: setting(
    'LEDGER_LOGS_POLL_INTERVAL_MS',
    milliseconds,
    1000,
    WORKER,
    'Fallback scan of the ledger log hasher behind LISTEN/NOTIFY.',
  ),
  ledgerPipelinePollIntervalMs: setting(
    'LEDGER_PIPELINE_POLL_INTERVAL_MS',
    milliseconds,
    1000,
    API,
    'How long a caught-up ledger pipeline waits before looking for new logs.',
  ),
  // Webhooks and every other outbound call.
  webhooksAllowedCidrs: setting(
    'WEBHOOKS_ALLOWED_CIDRS',
    cidrs,
    parseCidrList(''),
    BOTH,
    'IPs/CIDRs exempt from the SSRF deny list of every outbound call (webhooks, exporters, the generic connector). It never restricts public addresses.',
    '–',
  ),
  webhooksRetryInitialIntervalMs: setting(
    'WEBHOOKS_RETRY_INITIAL_INTERVAL_MS',
    milliseconds,
    10_000,
    WORKER,
    'First delay before a failing endpoint is probed again.',
  ),
  webhooksRetryBackoffCoefficient: setting('WEBHOOKS_RETRY_BACKOFF_COEFFICIENT', decimal(1), 3, WORKER, 'Growth of the probe delay.'),
  webhooksRetryMaxIntervalMs: setting(
    'WEBHOOKS_RETRY_MAX_INTERVAL_MS',
    milliseconds,
    6 * HOUR,
    WORKER,
    "Largest probe delay (also caps a receiver's `Retry-After`).",
  ),
  webhooksRetryForMs: setting(
    'WEBHOOKS_RETRY_FOR_MS',
    milliseconds,
    72 * HOUR,
    WORKER,
    'How long a delivery keeps waiting for its endpoint before it fails for good.',
  ),
  webhooksDisableAfterMs: setting(
    'WEBHOOKS_DISABLE_AFTER_MS',
    milliseconds,
    5 * 24 * HOUR,
    WORKER,
    'An endpoint with no successful attempt for this long is disabled.',
  ),
  webhooksBatchConcurrency: setting(
    'WEBHOOKS_BATCH_CONCURRENCY',
    integer(1, 10_000),
    64,
    WORKER,
    "Requests in flight at once in a batch's delivery attempts (a quarter of that per endpoint).",
  ),
  webhooksDrainConcurrency: setting(
    'WEBHOOKS_DRAIN_CONCURRENCY',
    integer(1, 10_000),
    8,
    WORKER,
    "Requests in flight at once when an endpoint's queue is sent (1: strictly in order).",
  ),
  webhooksDrainSweepIntervalMs: setting(
    'WEBHOOKS_DRAIN_SWEEP_INTERVAL_MS',
    milliseconds,
    60_000,
    WORKER,
    'How often each worker checks that every endpoint queue has its workflow.',
  ),
  webhooksHttpTimeoutMs: setting('WEBHOOKS_HTTP_TIMEOUT_MS', milliseconds, 15_000, BOTH, 'Timeout of one delivery request.'),
  webhooksSecretRotationGraceMs: setting(
    'WEBHOOKS_SECRET_ROTATION_GRACE_MS',
    milliseconds,
    24 * HOUR,
    API,
    'After a secret change, the previous secret also signs for this long.',
  ),
  // The supervisor's children.
  platformNodeArgs: setting(
    'PLATFORM_NODE_ARGS',
    text(),
    undefined,
    START,
    'Extra Node flags for the API and worker processes, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.',
    '–',
  ),
};

type Schema = typeof SETTINGS;
type ValueOf<S> = S extends Setting<infer T, infer F> ? T | F : never;
type Parsed = { -readonly [K in keyof Schema]: ValueOf<Schema[K]> };

export interface TracingSettings {
  /** Where spans are POSTed: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, or OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  tracesUrl: string;
  protocol: 'http/protobuf' | 'http/json';
  headers: Record<string, string>;
  /** OTEL_SERVICE_NAME; each process's own name (`financial-platform-api`, `-worker`) when unset. */
  serviceName?: string;
  resourceAttributes: Record<string, string>;
  /** The share of new traces recorded (parent-based: a sampled caller's trace is always followed). */
  sampleRatio: number;
}

/** The settings, typed; the defaults computed from other settings are filled in. */
export type Config = Omit<Parsed, 'publicUrl' | 'authAudience' | 'rateLimitBurst'> & {
  publicUrl: string;
  authAudience: string;
  rateLimitBurst: number;
  /** OpenTelemetry tracing; undefined when no OTLP endpoint is set (or OTEL_SDK_DISABLED): no SDK starts. */
  tracing?: TracingSettings;
  /** Whether DATA_DIR, PORT or PUBLIC_URL was given: helper scripts otherwise look for a running `npm start`. */
  locationGiven: boolean;
};

/**
 * Reads and checks every setting of `env`. An empty value counts as unset. @throws Error listing every malformed
 * variable with its expected form (one line each), which stops a process at start.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const parsed: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(SETTINGS) as Array<[string, Setting]>) {
    const raw = env[s.variable];
    if (raw === undefined || raw === '') {
      parsed[key] = s.fallback;
      continue;
    }
    const value = s.kind.parse(raw);
    if (value === undefined) problems.push(`${s.variable} must be ${s.kind.form}, got "${raw}"`);
    parsed[key] = value;
  }
  const config = parsed as Parsed;
  if (config.httpHeadersTimeoutMs > config.httpRequestTimeoutMs) {
    problems.push(
      `HTTP_HEADERS_TIMEOUT_MS (${config.httpHeadersTimeoutMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${config.httpRequestTimeoutMs})`,
    );
  }
  if ((config.bootstrapClientId === undefined) !== (config.bootstrapClientSecret === undefined)) {
    problems.push('BOOTSTRAP_CLIENT_ID and BOOTSTRAP_CLIENT_SECRET must be set together');
  }
  if (problems.length > 0) throw new Error(`invalid settings:\n  ${problems.join('\n  ')}\n(docs/configuration.md lists every setting)`);
  const { host, port } = config;
  const publicUrl = (config.publicUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/$/, '');
  return {
    ...config,
    dataDir: path.resolve(config.dataDir),
    publicUrl,
    authAudience: config.authAudience ?? `${publicUrl}/api`,
    rateLimitBurst: config.rateLimitBurst ?? config.rateLimitPerSecond * 2,
    locationGiven: Boolean(env.DATA_DIR || env.PORT || env.PUBLIC_URL),
    tracing: tracingOf(config),
  };
}

function tracingOf(config: Parsed): TracingSettings | undefined {
  if (config.otelSdkDisabled || (config.otelEndpoint === undefined && config.otelTracesEndpoint === undefined)) return undefined;
  return {
    tracesUrl: config.otelTracesEndpoint ?? `${(config.otelEndpoint as string).replace(/\/+$/, '')}/v1/traces`,
    protocol: config.otelTracesProtocol ?? config.otelProtocol,
    headers: { ...config.otelHeaders, ...config.otelTracesHeaders },
    serviceName: config.otelServiceName,
    resourceAttributes: config.otelResourceAttributes,
    sampleRatio: config.otelTracesSampler === 'parentbased_always_on' ? 1 : config.otelTracesSamplerArg,
  };
}

let current: Config | undefined;

/**
 * This process's settings, read from its environment once. Each entry point (api/server.ts, activities/worker.ts)
 * calls it before anything else, so a malformed variable stops the process before it serves.
 */
export function getConfig(): Config {
  current ??= loadConfig(process.env);
  return current;
}

/** The settings a server process cannot run without; the supervisor fills them in for a local start. */
export function requireRuntime(config: Config): Config & { databaseUrl: string; temporalAddress: string } {
  const missing = [!config.databaseUrl && 'DATABASE_URL', !config.temporalAddress && 'TEMPORAL_ADDRESS'].filter(Boolean);
  if (missing.length > 0) throw new Error(`missing environment: ${missing.join(', ')} (npm start sets them for you)`);
  return config as Config & { databaseUrl: string; temporalAddress: string };
}
