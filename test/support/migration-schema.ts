import knex, { type Knex } from 'knex';

/**
 * A schema of its own for a migration test, so rows written as an earlier release wrote them never touch the shared
 * test database: created before the file's tests, dropped after them. `setUp` runs the migrations the test starts
 * from. @returns the schema's name and its connection (one, so a session's temporary objects stay with it).
 */
export function migrationSchema(name: string, setUp: (db: Knex) => Promise<void>): { schema: string; db: () => Knex } {
  const schema = `${name}_${Date.now()}`;
  let db: Knex;
  beforeAll(async () => {
    const admin = knex({ client: 'pg', connection: process.env.TEST_DATABASE_URL });
    await admin.raw('CREATE SCHEMA ??', [schema]);
    await admin.destroy();
    db = knex({ client: 'pg', connection: process.env.TEST_DATABASE_URL, searchPath: [schema], pool: { min: 1, max: 1 } });
    await setUp(db);
  });
  afterAll(async () => {
    await db.raw('DROP SCHEMA ?? CASCADE', [schema]);
    await db.destroy();
  });
  return { schema, db: () => db };
}
