import { api, apiUrl, fetchRetryingClosedConnection } from './http';

export const issuerUrl = (): string => `${apiUrl()}/api/auth`;

export const adminCredentials = (): [string, string] => [process.env.TEST_CLIENT_ID as string, process.env.TEST_CLIENT_SECRET as string];

/**
 * POSTs a form to the issuer's token or revocation endpoint, with client_secret_basic when `basic` is given. Both may
 * be sent twice (a second token, a second revocation of the same token), so a closed connection is retried.
 */
export async function oauthPost(
  endpoint: 'token' | 'revoke',
  form: Record<string, string>,
  basic?: [string, string],
): Promise<{ status: number; body: Record<string, any> }> {
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
  if (basic) headers.Authorization = `Basic ${Buffer.from(`${basic[0]}:${basic[1]}`).toString('base64')}`;
  const response = await fetchRetryingClosedConnection(
    `${issuerUrl()}/oauth/${endpoint}`,
    { method: 'POST', headers, body: new URLSearchParams(form).toString() },
    true,
  );
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

/** An access token of `clientId` through the client_credentials grant. */
export async function clientToken(clientId: string, secret: string, scope?: string): Promise<string> {
  const { status, body } = await oauthPost('token', { grant_type: 'client_credentials', ...(scope ? { scope } : {}) }, [clientId, secret]);
  if (status !== 200) throw new Error(`token request failed: ${status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/** A new confidential client with `scopes` and `secrets` secrets (their clear values, in creation order). */
export async function newClient(scopes: string[], secrets = 1): Promise<{ id: string; secrets: Array<{ id: string; clear: string }> }> {
  const created = await api('POST', '/api/auth/clients', { body: { name: 'revocation-test', scopes } });
  if (created.status !== 201) throw new Error(`client creation failed: ${created.status} ${created.text}`);
  const made: Array<{ id: string; clear: string }> = [];
  for (let i = 0; i < secrets; i += 1) {
    const secret = await api('POST', `/api/auth/clients/${created.body.data.id}/secrets`, { body: { name: `s${i}` } });
    made.push({ id: secret.body.data.id, clear: secret.body.data.clear });
  }
  return { id: created.body.data.id, secrets: made };
}
