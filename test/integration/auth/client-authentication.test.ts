import { decodeJwt } from 'jose';
import { api, apiUrl, fetchRetryingClosedConnection } from '../../support/http';
import { pollUntil } from '../../support/eventually';
import { issuerUrl, newClient } from '../../support/oauth';
import { sampleValue, scrape } from '../../support/prometheus';

/**
 * Client authentication at the token and revocation endpoints: secrets are checked against their stored hashes before
 * oidc-provider (api/auth/client-secret.ts), and every refusal is still the provider's own answer.
 */
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const GRANT = 'grant_type=client_credentials';
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

async function send(path: string, headers: Record<string, string>, body?: string) {
  const response = await fetchRetryingClosedConnection(`${issuerUrl()}${path}`, { method: 'POST', headers, body }, true);
  const text = await response.text();
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body: text ? JSON.parse(text) : undefined };
}

const refused = { error: 'invalid_client', error_description: 'client authentication failed' };
const challenge = () => `Basic realm="${issuerUrl()}", error="invalid_client", error_description="client authentication failed"`;

describe('client authentication', () => {
  it('answers a wrong secret or an unknown client with the same invalid_client, through Basic and through the form', async () => {
    const client = await newClient(['ledger:read']);
    const before = await scrape(`${apiUrl()}/metrics`);
    const attempts: Array<[string, Record<string, string>, string]> = [
      ['/oauth/token', { ...FORM, Authorization: basic(client.id, 'not-the-secret') }, GRANT],
      ['/oauth/token', { ...FORM, Authorization: basic('no-such-client', 'x') }, GRANT],
      ['/oauth/token', { Authorization: basic(client.id, 'not-the-secret') }, ''], // no body at all
      ['/oauth/token', FORM, `${GRANT}&client_id=${client.id}&client_secret=not-the-secret`],
      ['/oauth/token', FORM, `${GRANT}&client_id=no-such-client&client_secret=x`],
      ['/oauth/revoke', { ...FORM, Authorization: basic(client.id, 'not-the-secret') }, 'token=abc'],
      ['/oauth/revoke', FORM, `token=abc&client_id=${client.id}&client_secret=not-the-secret`],
    ];
    for (const [path, headers, body] of attempts) {
      const expected = { status: 401, challenge: headers.Authorization ? challenge() : null, body: refused };
      expect({ path, body, answer: await send(path, headers, body || undefined) }).toEqual({ path, body, answer: expected });
    }
    const after = await scrape(`${apiUrl()}/metrics`);
    const delta = (labels: Record<string, string>) =>
      sampleValue(after.text, 'auth_token_refusals_total', labels) - sampleValue(before.text, 'auth_token_refusals_total', labels);
    expect(delta({ error: 'invalid_client' })).toBe(5); // the token endpoint's refusals; revocation is not a grant
    expect(delta({})).toBe(5);
  });

  it("authenticates with each of a client's secrets, by either method, and names that secret in the token", async () => {
    const client = await newClient(['ledger:read', 'ledger:write'], 2);
    const [first, second] = client.secrets;
    for (const secret of [first, second]) {
      const byBasic = await send('/oauth/token', { ...FORM, Authorization: basic(client.id, secret.clear) }, GRANT);
      const byForm = await send('/oauth/token', FORM, `${GRANT}&scope=ledger:read&client_id=${client.id}&client_secret=${secret.clear}`);
      expect([byBasic.status, byForm.status]).toEqual([200, 200]);
      expect(decodeJwt(byBasic.body.access_token)).toMatchObject({ client_secret_id: secret.id, scope: 'ledger:read ledger:write' });
      expect(decodeJwt(byForm.body.access_token)).toMatchObject({ client_secret_id: secret.id, scope: 'ledger:read' });
    }

    // The rotation's end: the first secret deleted, it is refused like any wrong secret and the second goes on.
    expect((await api('DELETE', `/api/auth/clients/${client.id}/secrets/${first.id}`)).status).toBe(204);
    expect(await send('/oauth/token', { ...FORM, Authorization: basic(client.id, first.clear) }, GRANT)).toEqual({
      status: 401,
      challenge: challenge(),
      body: refused,
    });
    expect(await send('/oauth/token', FORM, `${GRANT}&client_id=${client.id}&client_secret=${first.clear}`)).toEqual({
      status: 401,
      challenge: null,
      body: refused,
    });
    const rotated = await send('/oauth/token', FORM, `${GRANT}&client_id=${client.id}&client_secret=${second.clear}`);
    expect(decodeJwt(rotated.body.access_token).client_secret_id).toBe(second.id);
  });

  it("leaves malformed credentials to the provider's own invalid_request answers", async () => {
    const client = await newClient(['ledger:read']);
    const secret = client.secrets[0].clear;
    const invalid = (description: string) => ({ status: 400, challenge: null, body: { error: 'invalid_request', error_description: description } });
    expect(await send('/oauth/token', { ...FORM, Authorization: basic(client.id, '') }, GRANT)).toEqual(
      invalid('client_secret must be provided in the Authorization header'),
    );
    expect(await send('/oauth/token', { ...FORM, Authorization: basic(client.id, secret) }, `${GRANT}&client_secret=${secret}`)).toEqual(
      invalid('client authentication must only be provided using one mechanism'),
    );
    expect(await send('/oauth/token', FORM, `${GRANT}&client_id=${client.id}&client_secret=${secret}&client_secret=${secret}`)).toEqual(
      invalid("'client_secret' parameter must not be provided twice"),
    );
    expect(await send('/oauth/token', { ...FORM, Authorization: 'Basic !!!' }, GRANT)).toEqual(invalid('invalid authorization header value format'));
    expect(await send('/oauth/token', { ...FORM, Authorization: basic(client.id, 'a%zz') }, GRANT)).toEqual(
      invalid('client_id and client_secret in the authorization header are not properly encoded'),
    );
    // Authenticated from the header alone, then refused for the missing grant type.
    expect(await send('/oauth/token', { Authorization: basic(client.id, secret) })).toEqual(invalid("missing required parameter 'grant_type'"));
  });

  it('treats every spelling of the token and revocation paths the provider accepts alike', async () => {
    const client = await newClient(['auth:read'], 1);
    const [{ id: secretId, clear }] = client.secrets;
    for (const path of ['/oauth/token/', '/oauth/TOKEN']) {
      const { status, body } = await send(path, { ...FORM, Authorization: basic(client.id, clear) }, GRANT);
      expect(status).toBe(200);
      expect(decodeJwt(body.access_token)).toMatchObject({ client_secret_id: secretId, scope: 'auth:read', client_scopes_version: 0 });
    }
    const { body } = await send('/oauth/token', { ...FORM, Authorization: basic(client.id, clear) }, GRANT);
    expect((await api('GET', '/api/auth/clients', { token: body.access_token })).status).toBe(200);
    expect(await send('/oauth/Revoke/', { ...FORM, Authorization: basic(client.id, clear) }, `token=${body.access_token}`)).toEqual({
      status: 200,
      challenge: null,
      body: undefined,
    });
    await pollUntil(
      async () => (await api('GET', '/api/auth/clients', { token: body.access_token })).status,
      (status) => status === 401,
      { what: 'the token revoked through /oauth/Revoke/ to be refused' },
    );
  });
});
