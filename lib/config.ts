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
  authIssuerUrl?: string;
  authAudience: string;
  /** Overrides the cursor signing key stored in PostgreSQL (db/platform-secrets.ts). */
  cursorSigningKey?: string;
}

function intFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
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
    authIssuerUrl: env.AUTH_ISSUER_URL || undefined,
    authAudience: env.AUTH_AUDIENCE || `${publicUrl}/api`,
    cursorSigningKey,
  };
}

/** The settings a server process cannot run without; the supervisor fills them in for a local start. */
export function requireRuntime(config: Config): Config & { databaseUrl: string; temporalAddress: string } {
  const missing = [!config.databaseUrl && 'DATABASE_URL', !config.temporalAddress && 'TEMPORAL_ADDRESS'].filter(Boolean);
  if (missing.length > 0) throw new Error(`missing environment: ${missing.join(', ')} (npm start sets them for you)`);
  return config as Config & { databaseUrl: string; temporalAddress: string };
}
