import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, SETTINGS } from '../../lib/config';
import { settingsReference } from '../../lib/settings-reference';

const ROOT = path.join(__dirname, '..', '..');
const variables = Object.values(SETTINGS).map((s) => s.variable);

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sources(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The message loadConfig refuses `env` with (it must refuse it). */
function refusal(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('settings (lib/config.ts)', () => {
  it('applies every default to an empty environment, computing those that depend on other settings', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      publicUrl: 'http://127.0.0.1:8080',
      authAudience: 'http://127.0.0.1:8080/api',
      dataDir: path.resolve('.data'),
      logLevel: 'info',
      databaseUrl: undefined,
      databasePoolMax: 20,
      databaseAcquireTimeoutMs: 5000,
      appName: 'financial-platform',
      temporalLogLevel: 'WARN',
      trustProxy: false,
      rateLimitPerSecond: 1000,
      rateLimitBurst: 2000,
      ledgerGroupCommit: true,
      ledgerGroupCommitMaxBatch: 256,
      paymentsSimulatedDirs: [],
      webhooksRetryBackoffCoefficient: 3,
      webhooksRetryMaxIntervalMs: 6 * 3_600_000,
      locationGiven: false,
    });
    for (const [key, s] of Object.entries(SETTINGS)) {
      if (s.fallback !== undefined && typeof s.fallback !== 'object' && key !== 'dataDir')
        expect([key, config[key as keyof typeof config]]).toEqual([key, s.fallback]);
    }
  });

  it('counts an empty value as unset, and reads well-formed values', () => {
    expect(loadConfig({ PORT: '', LEDGER_GROUP_COMMIT: '' })).toMatchObject({ port: 8080, ledgerGroupCommit: true });
    expect(
      loadConfig({
        PORT: '9090',
        HOST: '::1',
        LEDGER_GROUP_COMMIT: 'off',
        LEDGER_GROUP_COMMIT_MAX_BATCH: '16',
        TRUST_PROXY: 'true',
        TEMPORAL_LOG_LEVEL: 'debug',
        RATE_LIMIT_PER_SECOND: '2.5',
        WEBHOOKS_RETRY_BACKOFF_COEFFICIENT: '1.5',
        PAYMENTS_SIMULATED_DIRS: ['/tmp/a', '/tmp/b'].join(path.delimiter),
        DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
        TEMPORAL_ADDRESS: '127.0.0.1:7233',
      }),
    ).toMatchObject({
      port: 9090,
      publicUrl: 'http://[::1]:9090',
      ledgerGroupCommit: false,
      ledgerGroupCommitMaxBatch: 16,
      trustProxy: true,
      temporalLogLevel: 'DEBUG',
      rateLimitPerSecond: 2.5,
      rateLimitBurst: 5,
      webhooksRetryBackoffCoefficient: 1.5,
      paymentsSimulatedDirs: ['/tmp/a', '/tmp/b'],
      locationGiven: true,
    });
    expect(loadConfig({ WEBHOOKS_ALLOWED_CIDRS: '127.0.0.0/8, ::1' }).webhooksAllowedCidrs.check('127.0.0.5', 'ipv4')).toBe(true);
    expect(loadConfig({}).webhooksAllowedCidrs.check('127.0.0.5', 'ipv4')).toBe(false);
  });

  it.each([
    [
      'a number that is not one',
      { LEDGER_GROUP_COMMIT_MAX_BATCH: 'abc' },
      'LEDGER_GROUP_COMMIT_MAX_BATCH must be an integer from 1 to 100000, got "abc"',
    ],
    ['a fraction where an integer is expected', { DATABASE_POOL_MAX: '2.5' }, 'DATABASE_POOL_MAX must be an integer from 1 to 10000, got "2.5"'],
    ['a number with a unit', { EVENTS_POLL_INTERVAL_MS: '2s' }, 'EVENTS_POLL_INTERVAL_MS must be an integer ≥ 1 (milliseconds), got "2s"'],
    ['a negative port', { PORT: '-1' }, 'PORT must be an integer from 0 to 65535, got "-1"'],
    ['a port out of range', { WORKER_METRICS_PORT: '70000' }, 'WORKER_METRICS_PORT must be an integer from 0 to 65535, got "70000"'],
    [
      'a zero where at least 1 is needed',
      { LEDGER_GROUP_COMMIT_MAX_BATCH: '0' },
      'LEDGER_GROUP_COMMIT_MAX_BATCH must be an integer from 1 to 100000, got "0"',
    ],
    ['a coefficient below 1', { WEBHOOKS_RETRY_BACKOFF_COEFFICIENT: '0.5' }, 'WEBHOOKS_RETRY_BACKOFF_COEFFICIENT must be a number ≥ 1, got "0.5"'],
    ['an unknown enum value', { LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"'],
    [
      'an unknown SDK log level',
      { TEMPORAL_LOG_LEVEL: 'LOUD' },
      'TEMPORAL_LOG_LEVEL must be one of TRACE, DEBUG, INFO, WARN, ERROR (any case), got "LOUD"',
    ],
    ['a switch that is neither on nor off', { LEDGER_GROUP_COMMIT: 'no' }, 'LEDGER_GROUP_COMMIT must be "on" or "off", got "no"'],
    ['a boolean that is neither true nor false', { TRUST_PROXY: 'yes' }, 'TRUST_PROXY must be "true" or "false", got "yes"'],
    ['a URL that is not one', { PUBLIC_URL: 'example.com' }, 'PUBLIC_URL must be a URL (http or https), got "example.com"'],
    ['a database URL of another scheme', { DATABASE_URL: 'mysql://h/db' }, 'DATABASE_URL must be a URL (postgres or postgresql), got "mysql://h/db"'],
    ['an address without a port', { TEMPORAL_ADDRESS: 'temporal' }, 'TEMPORAL_ADDRESS must be host:port, got "temporal"'],
    [
      'a malformed CIDR list',
      { WEBHOOKS_ALLOWED_CIDRS: '127.0.0.0/33' },
      'WEBHOOKS_ALLOWED_CIDRS must be comma-separated IP addresses or CIDR ranges (v4 or v6), got "127.0.0.0/33"',
    ],
    ['a short cursor key', { CURSOR_SIGNING_KEY: 'short' }, 'CURSOR_SIGNING_KEY must be at least 32 characters, got "short"'],
    [
      'a headers timeout beyond the request timeout',
      { HTTP_HEADERS_TIMEOUT_MS: '200000' },
      'HTTP_HEADERS_TIMEOUT_MS (200000) must not exceed HTTP_REQUEST_TIMEOUT_MS (120000)',
    ],
    ['half of the bootstrap credentials', { BOOTSTRAP_CLIENT_ID: 'admin' }, 'BOOTSTRAP_CLIENT_ID and BOOTSTRAP_CLIENT_SECRET must be set together'],
  ])('refuses %s, naming the variable and the expected form', (_case, env, message) => {
    expect(refusal(env)).toContain(message);
  });

  it('lists every malformed variable at once', () => {
    const message = refusal({ PORT: 'http', LOG_LEVEL: 'loud', EVENTS_BATCH_SIZE: '-5', HOST: '0.0.0.0' });
    expect(
      message
        .split('\n')
        .filter((line) => / must /.test(line))
        .map((line) => line.trim().split(' ')[0]),
    ).toEqual(['PORT', 'LOG_LEVEL', 'EVENTS_BATCH_SIZE']);
  });

  it('documents each variable once, with its form, default and readers (docs/configuration.md is the schema, written out)', () => {
    expect(new Set(variables).size).toBe(variables.length);
    for (const s of Object.values(SETTINGS)) {
      expect(s.doc.length).toBeGreaterThan(0);
      expect(s.readBy.length).toBeGreaterThan(0);
    }
    const docs = fs.readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8');
    const documented = [...docs.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
    expect(documented).toEqual(variables);
    // Regenerate with `npx tsx scripts/config-docs.ts` after changing the schema.
    expect(docs).toBe(settingsReference());
  });

  it('is the only production file that reads process.env (eslint says so as the code is written: layering-rules.test.ts)', () => {
    const production = ['api', 'areas', 'activities', 'db', 'lib', 'workflows'].flatMap((dir) => sources(path.join(ROOT, dir)));
    const readers = production.filter((file) => /\bprocess\.env\b/.test(fs.readFileSync(file, 'utf8'))).map((file) => path.relative(ROOT, file));
    expect(readers).toEqual(['lib/config.ts']);
  });
});
