import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/knex';
import { ensureClient } from '../areas/auth';
import { ALL_SCOPES } from '../api/middleware/authenticate';

export interface BootstrapCredentials {
  clientId: string;
  clientSecret: string;
  source: 'environment' | 'data directory' | 'generated';
}

const fileOf = (dataDir: string) => path.join(dataDir, 'bootstrap-client.json');

/** Reads the bootstrap client's credentials: BOOTSTRAP_CLIENT_ID/SECRET, else the file kept in the data directory. */
export function readBootstrapCredentials(dataDir: string, env = process.env): BootstrapCredentials | undefined {
  if (env.BOOTSTRAP_CLIENT_ID && env.BOOTSTRAP_CLIENT_SECRET) {
    return { clientId: env.BOOTSTRAP_CLIENT_ID, clientSecret: env.BOOTSTRAP_CLIENT_SECRET, source: 'environment' };
  }
  try {
    const saved = JSON.parse(fs.readFileSync(fileOf(dataDir), 'utf8'));
    return { clientId: saved.clientId, clientSecret: saved.clientSecret, source: 'data directory' };
  } catch {
    return undefined;
  }
}

/**
 * Ensures a confidential client with every scope exists, so a newcomer can get a token right after `npm start`.
 * Without BOOTSTRAP_CLIENT_ID/SECRET one is generated on the first start and kept (mode 0600) in the data directory.
 */
export async function ensureBootstrapClient(db: Db, dataDir: string, env = process.env): Promise<BootstrapCredentials> {
  let credentials = readBootstrapCredentials(dataDir, env);
  if (!credentials) {
    credentials = { clientId: 'platform-admin', clientSecret: randomBytes(32).toString('base64url'), source: 'generated' };
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(fileOf(dataDir), JSON.stringify({ clientId: credentials.clientId, clientSecret: credentials.clientSecret }, null, 2), {
      mode: 0o600,
    });
  }
  await ensureClient(db, credentials.clientId, credentials.clientSecret, [...ALL_SCOPES], 'Platform administrator (bootstrap)');
  return credentials;
}
