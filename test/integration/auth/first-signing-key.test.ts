import { randomBytes } from 'node:crypto';
import knex from 'knex';
import { loadSigningKeys } from '../../../areas/auth';
import { createDb } from '../../../db/knex';

/**
 * Replicas starting together on a fresh database must agree on one signing key: if each created its own, each would
 * trust only its own and refuse the other's tokens behind a load balancer. Run against an empty copy of the key table
 * in a schema of its own, with connections that all start at once.
 */
describe('the first signing key', () => {
  const schema = `keys_${randomBytes(4).toString('hex')}`;
  const admin = createDb(process.env.TEST_DATABASE_URL as string, { poolMax: 1 });
  const replicas = Array.from({ length: 6 }, () =>
    knex({ client: 'pg', connection: process.env.TEST_DATABASE_URL as string, searchPath: [schema], pool: { min: 0, max: 2 } }),
  );

  beforeAll(async () => {
    await admin.raw(`CREATE SCHEMA ${schema}`);
    await admin.raw(`CREATE TABLE ${schema}.auth_signing_keys (LIKE public.auth_signing_keys INCLUDING ALL)`);
  });
  afterAll(async () => {
    await Promise.all(replicas.map((db) => db.destroy()));
    await admin.raw(`DROP SCHEMA ${schema} CASCADE`);
    await admin.destroy();
  });

  it('is created once, whatever the number of replicas starting at the same time', async () => {
    const loaded = await Promise.all(replicas.map((db) => loadSigningKeys(db)));
    const kids = new Set(loaded.map((keys) => keys.map((k) => k.kid).join(',')));
    expect(kids.size).toBe(1);
    expect(loaded[0]).toHaveLength(1);
    expect(await admin(`${schema}.auth_signing_keys`).count<{ count: string }[]>('* as count')).toEqual([{ count: '1' }]);
  });
});
