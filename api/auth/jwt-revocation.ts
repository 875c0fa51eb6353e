import type Koa from 'koa';
import { createLocalJWKSet, jwtVerify, type JWK } from 'jose';
import type { Db } from '../../db/knex';
import { revokeToken } from '../../areas/auth';
import { publicJwk } from '../../areas/auth';

export const REVOCATION_PATH = '/api/auth/oauth/revoke';

/**
 * Completes oidc-provider's RFC 7009 revocation endpoint for our JWT access tokens. The provider only revokes tokens it
 * stores, and JWT access tokens are not stored: it answers 200 and nothing happens. So, after the provider has
 * authenticated the client and answered 200, the token's `jti` is recorded as revoked until the token expires
 * (auth_token_revocations), which every API process refuses within seconds (revocation-list.ts).
 * A token that is not one of ours, or already expired, needs nothing (RFC 7009 §2.2: still 200); a token of another
 * client is refused as the provider refuses its own stored tokens.
 */
export function jwtRevocation(options: { db: Db; issuerUrl: string; audience: string; signingKeys: JWK[] }) {
  const keys = createLocalJWKSet({ keys: options.signingKeys.map(publicJwk) });
  return async function revokeJwtAccessToken(ctx: Koa.Context): Promise<void> {
    const oidc = (ctx as unknown as { oidc?: { client?: { clientId: string }; params?: { token?: unknown } } }).oidc;
    const clientId = oidc?.client?.clientId;
    const token = oidc?.params?.token;
    if (!clientId || typeof token !== 'string') return;
    let claims: { client_id?: unknown; jti?: unknown; exp?: unknown };
    try {
      ({ payload: claims } = await jwtVerify(token, keys, { issuer: options.issuerUrl, audience: options.audience, algorithms: ['RS256'] }));
    } catch {
      return;
    }
    if (typeof claims.jti !== 'string' || typeof claims.exp !== 'number') return;
    if (claims.client_id !== clientId) {
      oauthError(ctx, 400, 'invalid_request', 'this token does not belong to you');
      return;
    }
    try {
      await revokeToken(options.db, { jti: claims.jti, clientId, expiresAt: new Date(claims.exp * 1000) });
    } catch (error) {
      ctx.state.logger?.warn({ err: error }, 'could not record a token revocation');
      // RFC 7009 §2.2.1: 503 tells the client the token still works and to retry later.
      oauthError(ctx, 503, 'temporarily_unavailable', 'the revocation could not be recorded; retry later');
      ctx.set('Retry-After', '1');
    }
  };
}

function oauthError(ctx: Koa.Context, status: number, error: string, description: string): void {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error, error_description: description };
}
