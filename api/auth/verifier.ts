import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, errors as joseErrors, type JWK, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { ApiError } from '../../lib/errors';
import type { Principal, TokenVerifier } from '../context';
import type { RevocationList } from './revocation-list';

/** The claim naming the client secret a token of the embedded issuer was issued with (see issuer.ts). */
export const SECRET_CLAIM = 'client_secret_id';
/** The claim naming the client's scopes version a token was issued under (see areas/auth/clients.ts, updateClient). */
export const SCOPES_VERSION_CLAIM = 'client_scopes_version';

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

/** What a verified token grants, and what the revocation check needs of it. */
interface VerifiedToken {
  /** The token's exact text: the map's key is only its end. */
  token: string;
  principal: Principal;
  identity: { clientId: string; secretId?: string; jti?: string; scopesVersion?: number };
  /** Until when this process may answer from memory (ms): the token's expiry, at most VERIFIED_TTL_MS after its check. */
  reuseUntilMs: number;
}

/**
 * A client sends the same token with every request until it expires (an hour for ours); its signature and claims were
 * checked at its first request, and re-checking them costs more API CPU than a read by id does (RSA verify and the
 * JOSE parse). So a verified token is remembered, keyed by its exact text, until its expiry but at most a minute
 * (a key removed from an external issuer's JWKS stops being honoured within that minute). Revocation is still
 * checked at every request. Unverifiable tokens are never remembered, and the map is bounded (oldest out first).
 */
const VERIFIED_TTL_MS = 60_000;
const VERIFIED_MAX = 10_000;

/**
 * Remembered tokens are found by their last characters (the signature's), then compared whole. Each request's header
 * is a new string, and keying a Map by a whole 1 KB token made V8 hash all of it on every lookup: 1.8 us, more than
 * the rest of the lookup. Two tokens ending alike only evict each other; the comparison keeps one from passing as the
 * other.
 */
const KEY_CHARS = 32;
const keyOf = (token: string) => token.slice(-KEY_CHARS);

/**
 * Verifies Bearer JWTs as a resource server (RFC 9068): signature against the issuer's keys, algorithm allow-list,
 * `iss`, `aud` and `exp`, then, for the embedded issuer, that the token was not revoked (`revocations`). Scopes come
 * from the space-separated `scope` claim (or an `scp` array, as some issuers send).
 */
export function createJwtVerifier(options: {
  issuer: string;
  audience: string;
  keys: JWTVerifyGetKey;
  revocations?: Pick<RevocationList, 'assertNotRevoked'>;
}): TokenVerifier {
  const verified = new Map<string, VerifiedToken>();

  async function check(token: string): Promise<VerifiedToken> {
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
    return {
      token,
      principal: { subject: String(payload.sub), clientId, scopes: new Set(scopeClaim.filter(Boolean)) },
      identity: {
        clientId,
        secretId: typeof payload[SECRET_CLAIM] === 'string' ? payload[SECRET_CLAIM] : undefined,
        jti: payload.jti,
        scopesVersion: Number.isSafeInteger(payload[SCOPES_VERSION_CLAIM]) ? (payload[SCOPES_VERSION_CLAIM] as number) : undefined,
      },
      // exp is required above; jose accepted it within the tolerance, which a remembered token does not get again.
      reuseUntilMs: Math.min((payload.exp as number) * 1000, Date.now() + VERIFIED_TTL_MS),
    };
  }

  function remembered(token: string): VerifiedToken | undefined {
    const entry = verified.get(keyOf(token));
    return entry !== undefined && entry.token === token && entry.reuseUntilMs > Date.now() ? entry : undefined;
  }

  return {
    remembers: (token) => remembered(token) !== undefined,
    async verify(token: string): Promise<Principal> {
      let entry = remembered(token);
      if (entry === undefined) {
        entry = await check(token);
        const key = keyOf(token);
        // Deleted first so a token verified again goes to the end of the eviction order (oldest out first), and an
        // expired entry does not stay behind when its token is not remembered again.
        verified.delete(key);
        if (entry.reuseUntilMs > Date.now()) {
          if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value as string);
          verified.set(key, entry);
        }
      }
      await options.revocations?.assertNotRevoked(entry.identity);
      return entry.principal;
    },
  };
}

export const localKeySet = (publicJwks: JWK[]): JWTVerifyGetKey => createLocalJWKSet({ keys: publicJwks });

/** Keys of an external issuer, fetched from its jwks_uri and cached by jose (refreshed on an unknown `kid`). */
export const remoteKeySet = (jwksUri: string): JWTVerifyGetKey =>
  createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: 5000, cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 });
