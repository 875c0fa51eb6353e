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
  };
}

/** The settings a server process cannot run without; the supervisor fills them in for a local start. */
export function requireRuntime(config: Config): Config & { databaseUrl: string; temporalAddress: string } {
  const missing = [!config.databaseUrl && 'DATABASE_URL', !config.temporalAddress && 'TEMPORAL_ADDRESS'].filter(Boolean);
  if (missing.length > 0) throw new Error(`missing environment: ${missing.join(', ')} (npm start sets them for you)`);
  return config as Config & { databaseUrl: string; temporalAddress: string };
}
