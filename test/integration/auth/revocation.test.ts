import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { createApp } from '../../../api/app';
import { startRevocationList, type RevocationList } from '../../../api/auth/revocation-list';
import { createJwtVerifier, localKeySet } from '../../../api/auth/verifier';
import { loadSigningKeys, publicJwk } from '../../../areas/auth/signing-keys';
import { createDb, type Db } from '../../../db/knex';
import { loadConfig } from '../../../lib/config';
import { createLogger } from '../../../lib/logger';
import { api, apiUrl, fetchRetryingClosedConnection } from '../../support/http';
import { pollUntil } from '../../support/eventually';
import { adminCredentials, clientToken, issuerUrl, newClient, oauthPost } from '../../support/oauth';

/**
 * A revoked token (deleted client, deleted secret, RFC 7009) is refused by every API process within seconds. Besides
 * the run's API, a second API built in this process (its own verifier and revocation list, the same database) plays
 * the other replica: it must learn of revocations made through the first.
 */
describe('revoked access tokens', () => {
  let db: Db;
  let revocations: RevocationList;
  let server: http.Server;
  let secondUrl: string;
  const ledger = `revocation-${Date.now().toString(36)}`;

  beforeAll(async () => {
    db = createDb(process.env.TEST_DATABASE_URL as string, { poolMax: 2 });
    const config = loadConfig({ ...process.env, PUBLIC_URL: apiUrl(), DATABASE_URL: process.env.TEST_DATABASE_URL });
    const logger = createLogger('revocation-test', 'silent');
    revocations = await startRevocationList({ databaseUrl: process.env.TEST_DATABASE_URL as string, logger });
    const keys = localKeySet((await loadSigningKeys(db)).map(publicJwk));
    const verifier = createJwtVerifier({ issuer: issuerUrl(), audience: config.authAudience, keys, revocations });
    // The routes used here never reach Temporal.
    const app = createApp({ config, db, logger, temporal: {} as never, verifier, cursorKey: Buffer.alloc(32) });
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    secondUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect((await api('POST', `/api/ledger/v2/${ledger}`)).status).toBe(204);
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await revocations.close();
    await db.destroy();
  });

  const apis = () => [apiUrl(), secondUrl];

  async function call(base: string, token: string, method: 'GET' | 'PUT', body?: unknown) {
    const path = method === 'GET' ? `/api/ledger/v2/${ledger}` : `/api/ledger/v2/${ledger}/metadata`;
    const headers: Record<string, string> = { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) };
    const response = await fetchRetryingClosedConnection(`${base}${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
    const text = await response.text();
    return { status: response.status, challenge: response.headers.get('www-authenticate'), body: text ? JSON.parse(text) : undefined };
  }

  /** Both APIs read and write with `token`. */
  async function expectWorks(token: string): Promise<void> {
    for (const base of apis()) {
      expect((await call(base, token, 'GET')).status).toBe(200);
      expect((await call(base, token, 'PUT', { works: base })).status).toBe(204);
    }
  }

  /** Waits (bounded) until both APIs refuse `token`, then checks the refusal of a read and of a write. */
  async function expectRefusedSoon(token: string): Promise<void> {
    for (const base of apis()) {
      await pollUntil(
        async () => (await call(base, token, 'GET')).status,
        (status) => status === 401,
        { intervalMs: 100, what: `${base} to refuse the revoked token` },
      );
      const read = await call(base, token, 'GET');
      expect(read).toEqual({
        status: 401,
        challenge: expect.stringContaining('error="invalid_token"'),
        body: { errorCode: 'UNAUTHORIZED', errorMessage: 'access token revoked' },
      });
      const marker = `after-revocation-${Math.random()}`;
      expect((await call(base, token, 'PUT', { [marker]: 'written' })).status).toBe(401);
      const metadata = (await api('GET', `/api/ledger/v2/${ledger}`)).body.data.metadata;
      expect(metadata[marker]).toBeUndefined();
    }
  }

  it('refuses the tokens of a deleted client', async () => {
    const client = await newClient(['ledger:write']);
    const token = await clientToken(client.id, client.secrets[0].clear);
    await expectWorks(token);

    expect((await api('DELETE', `/api/auth/clients/${client.id}`)).status).toBe(204);
    await expectRefusedSoon(token);
  });

  it("refuses the tokens of a deleted secret and keeps those of the client's other secret", async () => {
    const client = await newClient(['ledger:write'], 2);
    const [kept, deleted] = [client.secrets[1], client.secrets[0]];
    const doomed = await clientToken(client.id, deleted.clear);
    const survivor = await clientToken(client.id, kept.clear);
    expect(decodeJwt(doomed).client_secret_id).toBe(deleted.id);
    expect(decodeJwt(survivor).client_secret_id).toBe(kept.id);
    await expectWorks(doomed);
    await expectWorks(survivor);

    expect((await api('DELETE', `/api/auth/clients/${client.id}/secrets/${deleted.id}`)).status).toBe(204);
    await expectRefusedSoon(doomed);
    await expectWorks(survivor);
    await expectWorks(await clientToken(client.id, kept.clear));
    expect((await oauthPost('token', { grant_type: 'client_credentials' }, [client.id, deleted.clear])).status).toBe(401);
  });

  it('revokes a token through the RFC 7009 endpoint advertised in discovery', async () => {
    const discovery = await fetchRetryingClosedConnection(`${issuerUrl()}/.well-known/openid-configuration`).then(
      (r) => r.json() as Promise<{ revocation_endpoint?: string }>,
    );
    expect(discovery.revocation_endpoint).toBe(`${issuerUrl()}/oauth/revoke`);

    const client = await newClient(['ledger:write']);
    const secret = client.secrets[0].clear;
    const [first, second, third] = [await clientToken(client.id, secret), await clientToken(client.id, secret), await clientToken(client.id, secret)];
    await expectWorks(first);

    expect(await oauthPost('revoke', { token: first, token_type_hint: 'access_token' }, [client.id, secret])).toEqual({ status: 200, body: {} });
    await expectRefusedSoon(first);
    await expectWorks(second);
    const row = await db('auth_token_revocations')
      .where({ kind: 'token', subject: decodeJwt(first).jti })
      .first();
    expect(row).toMatchObject({ client_id: client.id });
    expect(new Date(row.expires_at).getTime()).toBe((decodeJwt(first).exp as number) * 1000);

    // client_secret_post authenticates as well as basic.
    expect((await oauthPost('revoke', { token: second, client_id: client.id, client_secret: secret })).status).toBe(200);
    await expectRefusedSoon(second);
    await expectWorks(third);
  });

  it("narrowing a client's scopes refuses every token issued before; widening or keeping them refuses none", async () => {
    const client = await newClient(['ledger:read', 'ledger:write']);
    const credentials: [string, string] = [client.id, client.secrets[0].clear];
    const replace = (scopes: string[], name = 'revocation-test') => api('PUT', `/api/auth/clients/${client.id}`, { body: { name, scopes } });
    const [broad, readOnly] = [await clientToken(...credentials), await clientToken(...credentials, 'ledger:read')];
    expect(decodeJwt(broad).client_scopes_version).toBe(0);
    await expectWorks(broad);

    // Same scopes, another name: nothing revoked.
    expect((await replace(['ledger:write', 'ledger:read'], 'renamed')).status).toBe(200);
    await expectWorks(broad);

    // ledger:write removed: the tokens issued before go, the read-only one too (issued before the change).
    expect((await replace(['ledger:read'])).status).toBe(200);
    await expectRefusedSoon(broad);
    for (const base of apis()) {
      await pollUntil(
        () => call(base, readOnly, 'GET'),
        (r) => r.status === 401,
        { timeoutMs: 30_000, what: 'read-only token refused' },
      );
    }
    const row = await db('auth_token_revocations')
      .where({ kind: 'scopes', subject: `0:${client.id}` })
      .first();
    expect(row).toMatchObject({ client_id: client.id });

    // A token issued after the change has the remaining scope and works for it, under the new version.
    const after = await clientToken(...credentials);
    expect(decodeJwt(after)).toMatchObject({ scope: 'ledger:read', client_scopes_version: 1 });
    for (const base of apis()) {
      expect((await call(base, after, 'GET')).status).toBe(200);
      expect((await call(base, after, 'PUT', { denied: true })).status).toBe(403);
    }
    expect((await oauthPost('token', { grant_type: 'client_credentials', scope: 'ledger:write' }, credentials)).body.error).toBe('invalid_scope');

    // Widening back revokes nothing: the token of the narrowed version keeps working, a new one has both scopes.
    expect((await replace(['ledger:read', 'ledger:write'])).status).toBe(200);
    const widened = await clientToken(...credentials);
    expect(decodeJwt(widened).client_scopes_version).toBe(1);
    await expectWorks(widened);
    for (const base of apis()) expect((await call(base, after, 'GET')).status).toBe(200);
    expect((await call(apiUrl(), broad, 'GET')).status).toBe(401);
  });

  // RFC 7009 §2.1: the hint may be wrong or unknown; the server searches further and still revokes the token.
  it.each([
    ['access_token', { token_type_hint: 'access_token' }],
    ['refresh_token (wrong)', { token_type_hint: 'refresh_token' }],
    ['an unknown hint', { token_type_hint: 'id_token' }],
    ['no hint', {}],
  ])('revokes an access token sent with %s as its token_type_hint', async (_name, hint: Record<string, string>) => {
    const client = await newClient(['ledger:write']);
    const credentials: [string, string] = [client.id, client.secrets[0].clear];
    const [token, other] = [await clientToken(...credentials), await clientToken(...credentials)];
    await expectWorks(token);
    expect(await oauthPost('revoke', { token, ...hint }, credentials)).toEqual({ status: 200, body: {} });
    await expectRefusedSoon(token);
    expect(
      await db('auth_token_revocations')
        .where({ kind: 'token', subject: decodeJwt(token).jti })
        .first(),
    ).toMatchObject({ client_id: client.id });
    await expectWorks(other);
  });

  it('answers 200 to the revocation of an unknown or already revoked token, as RFC 7009 says', async () => {
    const client = await newClient(['ledger:read']);
    const credentials: [string, string] = [client.id, client.secrets[0].clear];
    expect(await oauthPost('revoke', { token: 'no-such-token' }, credentials)).toEqual({ status: 200, body: {} });
    const token = await clientToken(...credentials);
    expect((await oauthPost('revoke', { token }, credentials)).status).toBe(200);
    expect((await oauthPost('revoke', { token }, credentials)).status).toBe(200);
  });

  it("refuses to revoke another client's token, and a revocation without valid client credentials", async () => {
    const owner = await newClient(['ledger:write']);
    const other = await newClient(['ledger:read']);
    const token = await clientToken(owner.id, owner.secrets[0].clear);

    const foreign = await oauthPost('revoke', { token }, [other.id, other.secrets[0].clear]);
    expect(foreign).toEqual({ status: 400, body: { error: 'invalid_request', error_description: 'this token does not belong to you' } });
    const unauthenticated = await oauthPost('revoke', { token }, [owner.id, 'wrong-secret']);
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.body.error).toBe('invalid_client');
    expect((await oauthPost('revoke', { token }, adminCredentials())).status).toBe(400);
    expect(
      await db('auth_token_revocations')
        .where({ kind: 'token', subject: decodeJwt(token).jti })
        .first(),
    ).toBeUndefined();
    await expectWorks(token);
  });
});
