import { SignJWT, decodeJwt, exportJWK, generateKeyPair, type JWTVerifyGetKey } from 'jose';
import { createJwtVerifier } from '../../api/auth/verifier';
import { ApiError } from '../../lib/errors';

const ISSUER = 'http://127.0.0.1/issuer';
const AUDIENCE = 'platform';

async function setup() {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256' };
  let keyLookups = 0;
  // Counts how often a signature is actually checked: jose asks for the key once per verification.
  const keys: JWTVerifyGetKey = async () => {
    keyLookups += 1;
    return publicKey;
  };
  const revoked = new Set<string>();
  const revocationChecks: string[] = [];
  const verifier = createJwtVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    keys,
    revocations: {
      assertNotRevoked: async (token: { jti?: string }) => {
        revocationChecks.push(token.jti ?? '');
        if (token.jti && revoked.has(token.jti)) throw new ApiError('UNAUTHORIZED', 'access token revoked');
      },
    },
  });
  const sign = (claims: { jti: string; scope?: string; expiresInSeconds?: number }) =>
    new SignJWT({ scope: claims.scope ?? 'ledger:read', client_id: 'client-1' })
      .setProtectedHeader({ alg: 'RS256', kid: jwk.kid })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('client-1')
      .setJti(claims.jti)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + (claims.expiresInSeconds ?? 3600))
      .sign(privateKey);
  return { verifier, sign, revoked, revocationChecks, lookups: () => keyLookups };
}

/** Everything jest's fake timers can replace but Date. */
const REAL_TIMERS = [
  'hrtime',
  'nextTick',
  'performance',
  'queueMicrotask',
  'setImmediate',
  'clearImmediate',
  'setInterval',
  'clearInterval',
  'setTimeout',
  'clearTimeout',
] as const;

describe('remembered token verification', () => {
  it("checks a token's signature once, and its revocation at every request", async () => {
    const { verifier, sign, revoked, revocationChecks, lookups } = await setup();
    const token = await sign({ jti: 't1', scope: 'ledger:read ledger:write' });
    for (let i = 0; i < 3; i += 1) {
      const principal = await verifier.verify(token);
      expect(principal).toEqual({ subject: 'client-1', clientId: 'client-1', scopes: new Set(['ledger:read', 'ledger:write']) });
    }
    expect(lookups()).toBe(1);
    expect(revocationChecks).toEqual(['t1', 't1', 't1']);
    revoked.add('t1');
    await expect(verifier.verify(token)).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: 'access token revoked' });
  });

  it('never remembers a token that failed, nor lets a tampered copy of a remembered one through', async () => {
    const { verifier, sign, lookups } = await setup();
    const token = await sign({ jti: 't2' });
    await verifier.verify(token);
    const [header, payload, signature] = token.split('.');
    const tampered = `${header}.${payload}.${signature.slice(0, -4)}${signature.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    for (let i = 0; i < 2; i += 1) await expect(verifier.verify(tampered)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(lookups()).toBe(3);
  });

  it('answers from memory only the exact token it verified, not one that merely ends like it', async () => {
    const { verifier, sign, lookups } = await setup();
    const token = await sign({ jti: 't4', scope: 'ledger:read' });
    expect(verifier.remembers?.(token)).toBe(false);
    await verifier.verify(token);
    expect(verifier.remembers?.(token)).toBe(true);
    // Same signature (so the same last characters, the key it is remembered by), another payload: a wider scope.
    const [header, , signature] = token.split('.');
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...decodeJwt(token), scope: 'ledger:write' })).toString('base64url')}.${signature}`;
    expect(forged.slice(-32)).toBe(token.slice(-32));
    expect(verifier.remembers?.(forged)).toBe(false);
    await expect(verifier.verify(forged)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(lookups()).toBe(2);
    // The forgery was not remembered in its place.
    expect(verifier.remembers?.(token)).toBe(true);
    expect((await verifier.verify(token)).scopes).toEqual(new Set(['ledger:read']));
    expect(lookups()).toBe(2);
  });

  it('checks a remembered token again once it has expired', async () => {
    // The test sets the clock (only Date is faked: jose's crypto and the promises run on real timers), so the token
    // expires when the test says, neither after a wait nor early on a loaded machine.
    jest.useFakeTimers({ doNotFake: [...REAL_TIMERS] });
    try {
      const { verifier, sign, lookups } = await setup();
      const token = await sign({ jti: 't3', expiresInSeconds: 3 });
      await verifier.verify(token);
      await verifier.verify(token);
      expect(lookups()).toBe(1);
      const { exp } = decodeJwt(token);
      jest.setSystemTime(exp! * 1000 - 1);
      expect(verifier.remembers?.(token)).toBe(true);
      // At its expiry it is verified again (jose's clock tolerance still accepts it for a few seconds).
      jest.setSystemTime(exp! * 1000);
      expect(verifier.remembers?.(token)).toBe(false);
      await verifier.verify(token);
      expect(lookups()).toBe(2);
    } finally {
      jest.useRealTimers();
    }
  });
});
