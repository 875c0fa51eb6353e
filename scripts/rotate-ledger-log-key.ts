import { loadConfig } from '../lib/config';
import { createDb } from '../db/knex';
import { rotateLogSigningKey } from '../areas/ledger';

/**
 * `npm run ledger:rotate-log-key`: adds a ledger log signing key. Every process signs new checkpoints with it within
 * seconds (no restart); the previous keys stay, so checkpoints and exports signed before the rotation still verify,
 * and `GET /api/ledger/v2/_/log-signing-keys` keeps serving them.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.databaseUrl) throw new Error('DATABASE_URL is not set');
  const db = createDb(config.databaseUrl, { poolMax: 1 });
  try {
    console.log(`new ledger log signing key ${await rotateLogSigningKey(db)}`);
  } finally {
    await db.destroy();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
