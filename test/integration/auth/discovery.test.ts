import { issuerUrl } from '../../support/oauth';

/** The issuer's discovery document lists only what is served (api/auth/issuer.ts). */
describe('OpenID discovery', () => {
  /** How each advertised URL is called: an endpoint listed here with no method is a test failure, not a skip. */
  const METHODS: Record<string, Array<'GET' | 'POST'>> = {
    jwks_uri: ['GET'],
    token_endpoint: ['POST'],
    revocation_endpoint: ['POST'],
    authorization_endpoint: ['GET', 'POST'],
  };

  it('every endpoint URL it advertises answers (not 404) with its method', async () => {
    const discovery = (await (await fetch(`${issuerUrl()}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    const endpoints = Object.entries(discovery).filter(([key, value]) => key !== 'issuer' && typeof value === 'string' && /^https?:\/\//.test(value));
    expect(endpoints.map(([key]) => key).sort()).toEqual(Object.keys(METHODS).sort());
    for (const [key, url] of endpoints as Array<[string, string]>) {
      expect(url.startsWith(`${issuerUrl()}/`)).toBe(true);
      for (const method of METHODS[key]) {
        const response = await fetch(url, {
          method,
          redirect: 'manual',
          ...(method === 'POST' ? { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: '' } : {}),
        });
        await response.arrayBuffer();
        expect({ key, method, status: response.status }).not.toEqual({ key, method, status: 404 });
        expect(response.status).toBeLessThan(500);
      }
    }
  });

  it('advertises neither userinfo, end-session nor PAR, and only the grant and response types it serves', async () => {
    const discovery = (await (await fetch(`${issuerUrl()}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    for (const key of [
      'userinfo_endpoint',
      'end_session_endpoint',
      'pushed_authorization_request_endpoint',
      'introspection_endpoint',
      'registration_endpoint',
    ]) {
      expect([key, discovery[key]]).toEqual([key, undefined]);
    }
    expect(discovery.grant_types_supported).toEqual(['client_credentials']);
    expect(discovery.response_types_supported).toEqual(['none']);
    for (const path of ['/me', '/session/end', '/request', '/auth']) {
      expect([path, (await fetch(`${issuerUrl()}${path}`)).status]).toEqual([path, 404]);
    }
  });
});
