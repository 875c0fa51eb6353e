import type Koa from 'koa';
import type { Config } from '../../lib/config';
import type { Db } from '../../db/knex';
import { loadSigningKeys, publicJwk } from '../../areas/auth';
import type { Logger } from '../../lib/logger';
import type { TokenVerifier } from '../context';
import { createIssuer } from './issuer';
import { startRevocationList } from './revocation-list';
import { createJwtVerifier, localKeySet, remoteKeySet } from './verifier';

export interface AuthSetup {
  verifier: TokenVerifier;
  mounts: Koa.Middleware[];
  issuer: string;
  /** Stops what auth keeps running (the revocation list's connection). */
  close(): Promise<void>;
}

/**
 * With AUTH_ISSUER_URL, tokens of that external issuer (Keycloak, Auth0…) are trusted, found through OpenID discovery;
 * otherwise the embedded issuer serves /api/auth and the API verifies its tokens with the keys it signs with, and
 * refuses those revoked (deleted client or secret, RFC 7009). An external issuer's clients are not ours to know, so
 * its tokens are checked for signature, claims and expiry only.
 */
export async function setupAuth(config: Config, db: Db, logger: Logger): Promise<AuthSetup> {
  if (config.authIssuerUrl) {
    const oidc = await import('openid-client');
    const issuerUrl = new URL(config.authIssuerUrl);
    const discovered = await oidc.discovery(issuerUrl, config.authClientId, undefined, undefined, {
      execute: issuerUrl.protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
      timeout: 10,
    });
    const metadata = discovered.serverMetadata();
    if (!metadata.jwks_uri) throw new Error(`issuer ${config.authIssuerUrl} publishes no jwks_uri`);
    logger.info({ issuer: metadata.issuer, jwksUri: metadata.jwks_uri }, 'trusting external OAuth issuer');
    return {
      issuer: metadata.issuer,
      mounts: [],
      verifier: createJwtVerifier({ issuer: metadata.issuer, audience: config.authAudience, keys: remoteKeySet(metadata.jwks_uri) }),
      close: async () => undefined,
    };
  }
  if (!config.databaseUrl) throw new Error('the embedded issuer needs DATABASE_URL (token revocations are read from PostgreSQL)');
  const issuer = `${config.publicUrl}/api/auth`;
  const signingKeys = await loadSigningKeys(db);
  const revocations = await startRevocationList({ databaseUrl: config.databaseUrl, logger });
  return {
    issuer,
    mounts: createIssuer({
      db,
      issuerUrl: issuer,
      audience: config.authAudience,
      signingKeys,
      accessTokenTtlSeconds: config.authAccessTokenTtl,
      trustProxy: config.trustProxy,
    }),
    verifier: createJwtVerifier({ issuer, audience: config.authAudience, keys: localKeySet(signingKeys.map(publicJwk)), revocations }),
    close: () => revocations.close(),
  };
}
