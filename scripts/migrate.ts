import { loadConfig } from '../lib/config';
import { createDb } from '../db/knex';
import { migrateLatest } from '../db/migrations';

/** `npm run migrate`: applies pending migrations to DATABASE_URL. `npm start` does the same on every start. */
async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.databaseUrl) throw new Error('DATABASE_URL is not set (npm start runs migrations against its embedded PostgreSQL itself)');
  const db = createDb(config.databaseUrl, { poolMax: 2 });
  try {
    const applied = await migrateLatest(db);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'already up to date');
  } finally {
    await db.destroy();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
