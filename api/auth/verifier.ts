import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, errors as joseErrors, type JWK, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { ApiError } from '../../lib/errors';
import type { Principal, TokenVerifier } from '../context';
import type { RevocationList } from './revocation-list';

/** The claim naming the client secret a token of the embedded issuer was issued with (see issuer.ts). */
export const SECRET_CLAIM = 'client_secret_id';

/** Asymmetric algorithms only: `none` and HMAC (which would let a public key act as a shared secret) are refused. */
const ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];
const CLOCK_TOLERANCE_SECONDS = 5;

function describe(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'access token expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `access token rejected: ${error.claim} claim check failed`;
  if (error instanceof joseErrors.JWSSignatureVerificationFailed || error instanceof joseErrors.JWKSNoMatchingKey) {
    return 'access token signature is not from a trusted key';
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'access token algorithm is not allowed';
  return 'invalid access token';
}

/**
 * Verifies Bearer JWTs as a resource server (RFC 9068): signature against the issuer's keys, algorithm allow-list,
 * `iss`, `aud` and `exp`, then, for the embedded issuer, that the token was not revoked (`revocations`). Scopes come
 * from the space-separated `scope` claim (or an `scp` array, as some issuers send).
 */
export function createJwtVerifier(options: { issuer: string; audience: string; keys: JWTVerifyGetKey; revocations?: Pick<RevocationList, 'assertNotRevoked'> }): TokenVerifier {
  return {
    async verify(token: string): Promise<Principal> {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, options.keys, {
          issuer: options.issuer,
          audience: options.audience,
          algorithms: ALGORITHMS,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ['exp', 'sub'],
        }));
      } catch (error) {
        throw new ApiError('UNAUTHORIZED', describe(error), { cause: error });
      }
      const scopeClaim = typeof payload.scope === 'string' ? payload.scope.split(' ') : Array.isArray(payload.scp) ? (payload.scp as string[]) : [];
      const clientId = typeof payload.client_id === 'string' ? payload.client_id : String(payload.azp ?? payload.sub);
      await options.revocations?.assertNotRevoked({
        clientId,
        secretId: typeof payload[SECRET_CLAIM] === 'string' ? payload[SECRET_CLAIM] : undefined,
        jti: payload.jti,
      });
      return { subject: String(payload.sub), clientId, scopes: new Set(scopeClaim.filter(Boolean)) };
    },
  };
}

export const localKeySet = (publicJwks: JWK[]): JWTVerifyGetKey => createLocalJWKSet({ keys: publicJwks });

/** Keys of an external issuer, fetched from its jwks_uri and cached by jose (refreshed on an unknown `kid`). */
export const remoteKeySet = (jwksUri: string): JWTVerifyGetKey =>
  createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: 5000, cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 });
