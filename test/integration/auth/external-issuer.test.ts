import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../../api/app';
import { setupAuth } from '../../../api/auth';
import { createDb, type Db } from '../../../db/knex';
import { loadConfig } from '../../../lib/config';
import { createLogger } from '../../../lib/logger';
import { createTemporalClient } from '../../../lib/temporal';
import { apiUrl, getToken } from '../../support/http';

/**
 * A second API configured with AUTH_ISSUER_URL trusts an external issuer through OpenID discovery and its JWKS.
 * The run's own platform plays the external issuer (it is a standards-compliant one), so the test stays on 127.0.0.1.
 */
describe('external issuer (AUTH_ISSUER_URL)', () => {
  let db: Db;
  let server: http.Server;
  let url: string;
  let closeTemporal: () => Promise<void>;

  beforeAll(async () => {
    const config = loadConfig({
      ...process.env,
      AUTH_ISSUER_URL: `${apiUrl()}/api/auth`,
      AUTH_AUDIENCE: `${apiUrl()}/api`,
      DATABASE_URL: process.env.TEST_DATABASE_URL,
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
    });
    db = createDb(config.databaseUrl as string, { poolMax: 2 });
    const logger = createLogger('external-issuer-test', 'silent');
    const temporal = await createTemporalClient({ address: config.temporalAddress as string, namespace: 'default' });
    closeTemporal = () => temporal.connection.close();
    const auth = await setupAuth(config, db, logger);
    expect(auth.mounts).toEqual([]);
    expect(auth.issuer).toBe(`${apiUrl()}/api/auth`);
    const app = createApp({
      config,
      db,
      logger,
      temporal: { ...temporal, taskQueue: 'unused' },
      verifier: auth.verifier,
      cursorKey: Buffer.alloc(32),
    });
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await closeTemporal();
    await db.destroy();
  });

  it("accepts the issuer's tokens, enforces scopes and serves no token endpoint of its own", async () => {
    const ok = await fetch(`${url}/api/auth/clients`, { headers: { Authorization: `Bearer ${await getToken('auth:read')}` } });
    expect(ok.status).toBe(200);
    const forbidden = await fetch(`${url}/api/auth/clients`, { headers: { Authorization: `Bearer ${await getToken('ledger:read')}` } });
    expect(forbidden.status).toBe(403);
    const noIssuer = await fetch(`${url}/api/auth/.well-known/openid-configuration`);
    expect(noIssuer.status).toBe(404);
  });
});
