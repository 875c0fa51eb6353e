import { metrics } from '../../lib/metrics';
import { randomBytes } from 'node:crypto';
import type Koa from 'koa';
import mount from 'koa-mount';
import type { JWK } from 'jose';
import type { Db } from '../../db/knex';
import { ALL_SCOPES } from '../middleware/authenticate';
import { jwtRevocation } from './jwt-revocation';
import { createSecretStandIn } from './client-secret';
import { createOidcAdapter, tokenRequestContext } from './oidc-adapter';
import { providerEndpoint, tokenRequestDefaults } from './token-request';
import { SCOPES_VERSION_CLAIM, SECRET_CLAIM } from './verifier';
import { escapeHtml } from '../html';

// oidc-provider 8 is an ES module; Node 20.19+ loads it with require(). Kept behind a function so tests and processes
// that never issue tokens do not load it.
function loadProvider(): { Provider: any; errors: any } {
  const mod = require('oidc-provider');
  return { Provider: mod.default ?? mod, errors: mod.errors };
}

/**
 * The embedded OAuth 2.0 authorization server (oidc-provider, OpenID certified), mounted under /api/auth:
 * discovery, JWKS, the token endpoint with the client_credentials grant and token revocation (RFC 7009). Access
 * tokens are RS256 JWTs (RFC 9068 `at+jwt`) for one resource, the API itself (`audience`), and name the client secret
 * they were issued with (`client_secret_id`), so deleting that secret revokes them, and the client's scopes version
 * (`client_scopes_version`), so narrowing its scopes revokes them.
 *
 * Discovery lists only endpoints that are served: the provider's defaults would also advertise userinfo, end-session
 * and PAR, which need end users and sessions this issuer does not have, so those features are off. The authorization
 * endpoint cannot be left out of the document (OpenID Discovery requires it, and the provider always lists it), so it is
 * served, under /oauth/ with the others: with `none` as the only response type and clients registered for
 * client_credentials only, it refuses every request with an error page (renderError).
 */
export function createIssuer(options: {
  db: Db;
  issuerUrl: string;
  audience: string;
  signingKeys: JWK[];
  accessTokenTtlSeconds: number;
  trustProxy: boolean;
}): Koa.Middleware[] {
  const { Provider, errors } = loadProvider();
  // Stored secrets are hashes: token-request.ts checks the presented secret and hands the provider this per-client
  // stand-in in its place, the `client_secret` the adapter gives the provider (client-secret.ts).
  const standIn = createSecretStandIn();
  const provider = new Provider(options.issuerUrl, {
    adapter: createOidcAdapter(options.db, standIn),
    jwks: { keys: options.signingKeys },
    scopes: [...ALL_SCOPES],
    claims: {},
    routes: {
      authorization: '/oauth/authorize',
      token: '/oauth/token',
      jwks: '/jwks',
      introspection: '/oauth/introspect',
      revocation: '/oauth/revoke',
    },
    // No code or token through the authorization endpoint: grant_types_supported is then client_credentials alone.
    responseTypes: ['none'],
    // The provider's page carries inline styles; this one is text only, so the strict page policy (api/html.ts) fits.
    renderError: async (ctx: Koa.Context, out: Record<string, string | undefined>) => {
      ctx.type = 'html';
      ctx.body = `<!doctype html><html><head><meta charset="utf-8"><title>Authorization error</title></head><body>
<h1>${escapeHtml(out.error ?? 'error')}</h1><p>${escapeHtml(out.error_description ?? '')}</p></body></html>`;
    },
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    ttl: { ClientCredentials: options.accessTokenTtlSeconds },
    extraTokenClaims: async () => {
      const store = tokenRequestContext.getStore();
      return {
        ...(store?.secretId ? { [SECRET_CLAIM]: store.secretId } : {}),
        ...(store?.scopesVersion !== undefined ? { [SCOPES_VERSION_CLAIM]: store.scopesVersion } : {}),
      };
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: false },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => options.audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          if (resource !== options.audience) throw new errors.InvalidTarget(`unknown resource; use ${options.audience}`);
          return {
            scope: ALL_SCOPES.join(' '),
            audience: options.audience,
            accessTokenTTL: options.accessTokenTtlSeconds,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
  });
  provider.proxy = options.trustProxy;
  // The provider's own events: one per token endpoint answer. The error label is the OAuth error code (a fixed set).
  provider.on('grant.success', (ctx: { oidc?: { params?: { grant_type?: unknown } } }) => {
    metrics.tokensIssued.inc({ grant_type: String(ctx.oidc?.params?.grant_type ?? 'unknown') });
  });
  provider.on('grant.error', (_ctx: unknown, error: { error?: string }) => metrics.tokenRefusals.inc({ error: error.error ?? 'server_error' }));
  const mounted = mount('/api/auth', provider.app);
  const revokeJwt = jwtRevocation(options);
  // Only the provider's own endpoints go to it; the rest of /api/auth (the clients API) is ours. The provider's
  // actions end with `await next()`, so they get an empty continuation instead of our body parser and router.
  const providerPaths = /^\/api\/auth\/(\.well-known\/|jwks$|oauth\/)/;
  const endOfChain = async () => undefined;
  const toProvider = async (ctx: Koa.Context) => {
    await mounted(ctx, endOfChain);
    if (providerEndpoint(ctx.path) === 'revocation' && ctx.method === 'POST' && ctx.status === 200) await revokeJwt(ctx);
  };
  const completeTokenRequests = tokenRequestDefaults(options.db, standIn);
  // One mount, not async itself: every request passes here, and only /api/auth needs more than a prefix check.
  const issuerMount: Koa.Middleware = (ctx, next) => {
    if (!ctx.path.startsWith('/api/auth/')) return next();
    return completeTokenRequests(ctx, () => (providerPaths.test(ctx.path) ? toProvider(ctx) : next()));
  };
  return [issuerMount];
}
