import { loadConfig } from '../lib/config';
import { createDb } from '../db/knex';
import { rotateSigningKey } from '../areas/auth';
import { readRunFile } from './stack/run-file';

/**
 * `npm run auth:rotate-key`: adds a new signing key. After the API restarts it signs with the new key while the JWKS
 * still publishes the previous one, so tokens issued before the rotation stay valid until they expire.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  // Without DATABASE_URL, the database of the `npm start` running in this checkout.
  const databaseUrl = config.databaseUrl ?? readRunFile(config.runFile)?.databaseUrl;
  if (!databaseUrl) throw new Error('DATABASE_URL is not set and no npm start is running in this checkout');
  const db = createDb(databaseUrl, { poolMax: 1 });
  try {
    console.log(`new signing key ${await rotateSigningKey(db)}; restart the API processes to sign with it`);
  } finally {
    await db.destroy();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
