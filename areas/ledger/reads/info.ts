import { migrationsInfo, type MigrationInfo } from '../../../db/migrations';
import { assertLedgerExists } from '../ledgers';
import type { Executor } from '../types';

/** Every ledger's name, oldest first: Formance v1's `_info` lists them all (`config.storage.ledgers`). */
export async function ledgerNames(db: Executor): Promise<string[]> {
  const rows: Array<{ name: string }> = await db('ledgers').orderBy('id').select('name');
  return rows.map((row) => row.name);
}

/**
 * Formance v1's ledger `_info`: the storage migrations. Every ledger lives in the platform's one schema, so they are
 * the platform's migrations, the same for every ledger. @throws ApiError LEDGER_NOT_FOUND
 */
export async function ledgerStorageInfo(db: Executor, ledger: string): Promise<MigrationInfo[]> {
  await assertLedgerExists(db, ledger);
  return migrationsInfo(db);
}
