import type { Db } from '../../db/knex';
import { ledgerViolations } from '../../test/support/ledger-invariants';

/**
 * The invariant sweep every drill ends with, over every ledger of the database: each asset sums to zero, no balance
 * below its allowed overdraft (only `world`), txids dense, volumes equal to the replay of all postings in order.
 */
export async function sweepAllLedgers(db: Db): Promise<string[]> {
  const ledgers = await db('ledgers').pluck('name');
  const problems: string[] = [];
  for (const ledger of ledgers) problems.push(...(await ledgerViolations(db, ledger)).map((p) => `${ledger}: ${p}`));
  return problems;
}
