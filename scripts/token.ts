import { loadConfig } from '../lib/config';
import { parseJson } from '../lib/json';
import { readBootstrapCredentials } from './bootstrap-client';
import { readRunFile } from './stack/run-file';

/**
 * `npm run token`: prints a fresh access token of the bootstrap client (client_credentials grant, all its scopes),
 * e.g. `curl -H "Authorization: Bearer $(npm run -s token)" http://127.0.0.1:8080/api/ledger/v2`.
 * From any shell: without DATA_DIR, PORT or PUBLIC_URL it asks the `npm start` that is running in this checkout.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const run = config.locationGiven ? undefined : readRunFile(config.runFile);
  const dataDir = run?.dataDir ?? config.dataDir;
  const apiUrl = run?.apiUrl ?? config.publicUrl;
  const credentials = readBootstrapCredentials(dataDir);
  if (!credentials) {
    throw new Error(
      run || config.locationGiven
        ? `no bootstrap client in ${dataDir}: set BOOTSTRAP_CLIENT_ID/BOOTSTRAP_CLIENT_SECRET`
        : `no running platform found (${config.runFile} is written by npm start once it is up): start it with npm start, or set DATA_DIR and PORT to reach one started elsewhere`,
    );
  }
  const scope = process.argv[2];
  let response: Response;
  try {
    response = await fetch(`${apiUrl}/api/auth/oauth/token`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${Buffer.from(`${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    throw new Error(
      `the API at ${apiUrl} did not answer (${error instanceof Error ? error.message : error}): is npm start running${run ? '' : ' with this DATA_DIR and PORT'}?`,
    );
  }
  const body = parseJson(await response.text()) as { access_token?: string; error?: string; error_description?: string };
  if (!response.ok || !body.access_token)
    throw new Error(`token request to ${apiUrl} failed (${response.status}): ${body.error} ${body.error_description ?? ''}`);
  process.stdout.write(`${body.access_token}\n`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
