import type Koa from 'koa';
import type { Config } from '../../lib/config';
import type { Db } from '../../db/knex';
import { loadSigningKeys, publicJwk } from '../../db/auth/signing-keys';
import type { Logger } from '../../lib/logger';
import type { TokenVerifier } from '../context';
import { createIssuer } from './issuer';
import { createJwtVerifier, localKeySet, remoteKeySet } from './verifier';

export interface AuthSetup {
  verifier: TokenVerifier;
  mounts: Koa.Middleware[];
  issuer: string;
}

/**
 * With AUTH_ISSUER_URL, tokens of that external issuer (Keycloak, Auth0…) are trusted, found through OpenID discovery;
 * otherwise the embedded issuer serves /api/auth and the API verifies its tokens with the keys it signs with.
 */
export async function setupAuth(config: Config, db: Db, logger: Logger): Promise<AuthSetup> {
  if (config.authIssuerUrl) {
    const oidc = await import('openid-client');
    const issuerUrl = new URL(config.authIssuerUrl);
    const discovered = await oidc.discovery(issuerUrl, process.env.AUTH_CLIENT_ID || 'financial-platform-api', undefined, undefined, {
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
    };
  }
  const issuer = `${config.publicUrl}/api/auth`;
  const signingKeys = await loadSigningKeys(db);
  return {
    issuer,
    mounts: createIssuer({ db, issuerUrl: issuer, audience: config.authAudience, signingKeys }),
    verifier: createJwtVerifier({ issuer, audience: config.authAudience, keys: localKeySet(signingKeys.map(publicJwk)) }),
  };
}
