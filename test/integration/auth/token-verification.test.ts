import { createHash, randomUUID } from 'node:crypto';
import { generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { createDb, type Db } from '../../../db/knex';
import { api, apiUrl } from '../../support/http';

/** Tokens forged or altered in one way each; the API must answer 401 with a Bearer challenge to all of them. */
describe('resource server token verification', () => {
  let db: Db;
  let signingKey: JWK;
  beforeAll(async () => {
    db = createDb(process.env.TEST_DATABASE_URL as string, { poolMax: 2 });
    signingKey = (await db('auth_signing_keys').orderBy('created_at', 'desc').first()).private_jwk;
  });
  afterAll(async () => db.destroy());

  const claims = () => ({ scope: 'auth:read', client_id: 'platform-admin', jti: randomUUID() });
  async function sign(options: { key?: Parameters<SignJWT['sign']>[0]; kid?: string; iss?: string; aud?: string; exp?: number; alg?: string } = {}) {
    const key = options.key ?? (await importJWK(signingKey, 'RS256'));
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(claims())
      .setProtectedHeader({ alg: options.alg ?? 'RS256', typ: 'at+jwt', kid: options.kid ?? signingKey.kid })
      .setSubject('platform-admin')
      .setIssuer(options.iss ?? `${apiUrl()}/api/auth`)
      .setAudience(options.aud ?? `${apiUrl()}/api`)
      .setIssuedAt(now - 10)
      .setExpirationTime(options.exp ?? now + 300)
      .sign(key);
  }

  it('accepts a well-formed token signed by the issuer key (control case)', async () => {
    expect((await api('GET', '/api/auth/clients', { token: await sign() })).status).toBe(200);
  });

  it.each([
    ['expired', async () => sign({ exp: Math.floor(Date.now() / 1000) - 120 })],
    ['signed by another key', async () => sign({ key: (await generateKeyPair('RS256')).privateKey })],
    ['with a wrong audience', async () => sign({ aud: 'https://other.example/api' })],
    ['with a wrong issuer', async () => sign({ iss: 'https://evil.example/api/auth' })],
    ['HMAC-signed with the public key material', async () => sign({ alg: 'HS256', key: new TextEncoder().encode(signingKey.n as string) })],
    [
      'unsigned (alg none)',
      async () => {
        const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
        const now = Math.floor(Date.now() / 1000);
        return `${enc({ alg: 'none', typ: 'at+jwt' })}.${enc({ ...claims(), sub: 'platform-admin', iss: `${apiUrl()}/api/auth`, aud: `${apiUrl()}/api`, exp: now + 300 })}.`;
      },
    ],
    ['garbage', async () => 'not.a.jwt'],
  ])('refuses a token %s with 401 and WWW-Authenticate: Bearer', async (_name, makeToken) => {
    const res = await api('GET', '/api/auth/clients', { token: await makeToken() });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(res.body).toEqual({ errorCode: 'UNAUTHORIZED', errorMessage: expect.any(String) });
  });

  it('stores client secrets only as a hash and shows the clear value once', async () => {
    const created = await api('POST', '/api/auth/clients', { body: { name: 'hashing', scopes: ['ledger:read'] } });
    const clientId = created.body.data.id;
    const secret = await api('POST', `/api/auth/clients/${clientId}/secrets`, { body: { name: 'ci', metadata: { team: 'core' } } });
    expect(secret.body.data).toEqual({
      id: expect.any(String),
      name: 'ci',
      lastDigits: secret.body.data.clear.slice(-4),
      clear: expect.any(String),
      metadata: { team: 'core' },
    });
    const row = await db('auth_client_secrets').where({ id: secret.body.data.id }).first();
    expect(row.hash).not.toContain(secret.body.data.clear);
    expect(row.hash).toBe(createHash('sha256').update(secret.body.data.clear).digest('hex'));
    const read = await api('GET', `/api/auth/clients/${clientId}`);
    expect(read.text).not.toContain(secret.body.data.clear);
    expect(read.text).not.toContain(row.hash);
    expect(read.body.data.secrets).toEqual([
      { id: secret.body.data.id, name: 'ci', lastDigits: secret.body.data.clear.slice(-4), metadata: { team: 'core' } },
    ]);
  });
});
