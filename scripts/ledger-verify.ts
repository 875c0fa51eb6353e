import { logChainStatus, verifyLogChain } from '../areas/ledger';
import { createDb } from '../db/knex';
import { stringifyJson } from '../lib/json';

/**
 * `npm run ledger:verify -- <ledger>`: recomputes the ledger's log chain and replays its log against the stored state
 * (DATABASE_URL), and prints the result (as POST .../logs/verify: the typed mismatches) with the hasher's position;
 * exits 1 when a log breaks the chain or anything stored differs from the replay. Read-only.
 */
async function main(): Promise<void> {
  const ledger = process.argv[2];
  if (!ledger) throw new Error('usage: npm run ledger:verify -- <ledger>');
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set');
  const db = createDb(url, { poolMax: 2 });
  try {
    const verification = await verifyLogChain(db, ledger);
    const chain = await logChainStatus(db, ledger);
    process.stdout.write(`${stringifyJson({ ledger, ...verification, chain }, 2)}\n`);
    if (!verification.valid) process.exitCode = 1;
  } finally {
    await db.destroy();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
