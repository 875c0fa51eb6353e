import * as oidc from 'openid-client';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { api, apiUrl } from '../../support/http';
import { adminCredentials as admin, issuerUrl, oauthPost } from '../../support/oauth';

const tokenRequest = (form: Record<string, string>, basic?: [string, string]) => oauthPost('token', form, basic);

describe('embedded OAuth 2.0 issuer', () => {
  it('is found through discovery and issues client_credentials tokens that openid-client obtains and the API accepts', async () => {
    const [clientId, clientSecret] = admin();
    const config = await oidc.discovery(new URL(issuerUrl()), clientId, undefined, oidc.ClientSecretBasic(clientSecret), {
      execute: [oidc.allowInsecureRequests],
    });
    expect(config.serverMetadata().token_endpoint).toBe(`${issuerUrl()}/oauth/token`);
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'auth:read ledger:write' });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.scope).toBe('auth:read ledger:write');

    const res = await api('GET', '/api/auth/clients', { token: tokens.access_token });
    expect(res.status).toBe(200);
  });

  it('issues RFC 9068 JWT access tokens signed with a published asymmetric key', async () => {
    const { body } = await tokenRequest({ grant_type: 'client_credentials', scope: 'wallets:read' }, admin());
    const header = decodeProtectedHeader(body.access_token);
    expect(header).toMatchObject({ alg: 'RS256', typ: 'at+jwt', kid: expect.any(String) });
    // The key set keeps its own media type (RFC 7517 §8.5) on its way out through the API's JSON writer.
    const published = await fetch(`${issuerUrl()}/jwks`);
    expect(published.headers.get('content-type')).toMatch(/^application\/jwk-set\+json/);
    const jwks = createRemoteJWKSet(new URL(`${issuerUrl()}/jwks`));
    const { payload } = await jwtVerify(body.access_token, jwks, { issuer: issuerUrl(), audience: `${apiUrl()}/api` });
    expect(payload).toMatchObject({ sub: admin()[0], client_id: admin()[0], scope: 'wallets:read' });
    for (const claim of ['iss', 'aud', 'exp', 'iat', 'jti']) expect(payload[claim]).toBeDefined();
  });

  it('accepts client_secret_post as well as client_secret_basic', async () => {
    const [client_id, client_secret] = admin();
    const post = await tokenRequest({ grant_type: 'client_credentials', client_id, client_secret, scope: 'ledger:read' });
    expect(post.status).toBe(200);
    expect(post.body.scope).toBe('ledger:read');
  });

  it("grants all of the client's scopes when none is requested", async () => {
    const res = await api('POST', '/api/auth/clients', { body: { name: 'narrow', scopes: ['ledger:read', 'payments:write'] } });
    const secret = await api('POST', `/api/auth/clients/${res.body.data.id}/secrets`, { body: { name: 's' } });
    const { status, body } = await tokenRequest({ grant_type: 'client_credentials' }, [res.body.data.id, secret.body.data.clear]);
    expect(status).toBe(200);
    expect(body.scope.split(' ').sort()).toEqual(['ledger:read', 'payments:write']);
  });

  it.each([
    ['a wrong secret', () => tokenRequest({ grant_type: 'client_credentials' }, [admin()[0], 'not-the-secret']), 401, 'invalid_client'],
    ['an unknown client', () => tokenRequest({ grant_type: 'client_credentials' }, ['no-such-client', 'x']), 401, 'invalid_client'],
    ['an unknown scope', () => tokenRequest({ grant_type: 'client_credentials', scope: 'ledger:read bank:rob' }, admin()), 400, 'invalid_scope'],
  ])('refuses %s', async (_name, request, status, error) => {
    const res = await request();
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(error);
  });

  it('refuses a scope the client may not have', async () => {
    const res = await api('POST', '/api/auth/clients', { body: { name: 'reader', scopes: ['ledger:read'] } });
    const secret = await api('POST', `/api/auth/clients/${res.body.data.id}/secrets`, { body: {} });
    const denied = await tokenRequest({ grant_type: 'client_credentials', scope: 'ledger:write' }, [res.body.data.id, secret.body.data.clear]);
    expect(denied.status).toBe(400);
    expect(denied.body.error).toBe('invalid_scope');
  });
});
