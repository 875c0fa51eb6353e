import { loadConfig } from '../lib/config';
import { readBootstrapCredentials } from './bootstrap-client';

/**
 * `npm run token`: prints a fresh access token of the bootstrap client (client_credentials grant, all its scopes),
 * e.g. `curl -H "Authorization: Bearer $(npm run -s token)" http://127.0.0.1:8080/api/ledger/v2`.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const credentials = readBootstrapCredentials(config.dataDir);
  if (!credentials) throw new Error(`no bootstrap client: start the platform once (npm start) or set BOOTSTRAP_CLIENT_ID/BOOTSTRAP_CLIENT_SECRET`);
  const scope = process.argv[2];
  const response = await fetch(`${config.publicUrl}/api/auth/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${Buffer.from(`${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
  if (!response.ok || !body.access_token) throw new Error(`token request failed (${response.status}): ${body.error} ${body.error_description ?? ''}`);
  process.stdout.write(`${body.access_token}\n`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
