import fs from 'node:fs';
import path from 'node:path';
import { startThrowawayPlatform } from '../../scripts/stack/platform';
import { readBootstrapCredentials } from '../../scripts/bootstrap-client';

export interface BenchPlatform {
  apiUrl: string;
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  /** The stack's DATA_DIR (the simulated connector's directories must be inside it). */
  dataDir: string;
  token(scope?: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * The stack a benchmark runs on: the running one when BENCH_API_URL (plus DATABASE_URL, TEMPORAL_ADDRESS and DATA_DIR
 * for its bootstrap client) is set, otherwise a fresh one started here on free ports and stopped at the end.
 */
export async function benchPlatform(): Promise<BenchPlatform> {
  let apiUrl: string;
  let databaseUrl: string;
  let temporalAddress: string;
  let dataDir: string;
  let credentials: { clientId: string; clientSecret: string };
  let stop = async () => undefined as void;
  if (process.env.BENCH_API_URL) {
    apiUrl = process.env.BENCH_API_URL;
    databaseUrl = process.env.DATABASE_URL as string;
    temporalAddress = process.env.TEMPORAL_ADDRESS as string;
    const saved = readBootstrapCredentials(path.resolve(process.env.DATA_DIR || '.data'));
    if (!saved || !databaseUrl || !temporalAddress) throw new Error('with BENCH_API_URL also set DATABASE_URL, TEMPORAL_ADDRESS and DATA_DIR');
    credentials = saved;
    dataDir = path.resolve(process.env.DATA_DIR || '.data');
  } else {
    const platform = await startThrowawayPlatform({
      purpose: 'bench',
      env: benchEnv(),
    });
    ({ apiUrl, databaseUrl, temporalAddress, credentials, dataDir } = platform);
    stop = async () => {
      await platform.stop();
      fs.rmSync(platform.dataDir, { recursive: true, force: true });
    };
  }
  const token = tokenFor(apiUrl, credentials);
  return { apiUrl, databaseUrl, temporalAddress, taskQueue: process.env.TEMPORAL_TASK_QUEUE || 'financial-platform', dataDir, token, stop };
}

/**
 * The environment of a platform a benchmark starts. The webhook scenario's receiver is on loopback (allowed here
 * only); its 5% of 500s retry after 1 s instead of the production default, so the run can check that every event ends
 * with one success within its bound.
 */
export function benchEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_SECOND: '0',
    WEBHOOKS_ALLOWED_CIDRS: '127.0.0.0/8',
    WEBHOOKS_RETRY_INITIAL_INTERVAL_MS: '1000',
  };
}

/** Tokens of the bootstrap client, from the API's token endpoint (client credentials). */
export function tokenFor(apiUrl: string, credentials: { clientId: string; clientSecret: string }): (scope?: string) => Promise<string> {
  return async (scope?: string) => {
    const response = await fetch(`${apiUrl}/api/auth/oauth/token`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) }),
    });
    return ((await response.json()) as { access_token: string }).access_token;
  };
}
