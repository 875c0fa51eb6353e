import { listVolumes } from '../../ledger';
import { getPoolBalancesAt } from '../../payments';
import type { Executor } from '../../../db/knex';
import type { Source, SourceRead } from './templates';

const PAGE = 1000;

/**
 * Reads one source as of `pit`, exactly at any past instant, so an evaluation compares both sides at the instants
 * it records. A ledger source's balances are the sums of the postings of the transactions inserted before `pit`
 * (insertion date, so a transaction backdated after `pit` is not seen, as it was not there then). A pool source's
 * balances are the pool's accounts' balances as last fetched at or before `pit`, from the payments balance history
 * (the same read as a policy's reconciliation; it waits for the writers still open since before `pit`, and answers
 * SERVICE_UNAVAILABLE when one stays open).
 */
export async function readSource(db: Executor, source: Source, pit: Date): Promise<SourceRead> {
  if (source.type === 'pool') {
    const rows = await getPoolBalancesAt(db, source.poolID, pit);
    return { type: 'pool', balances: new Map(rows.map((r) => [r.asset, r.amount])) };
  }
  const balances: Array<{ account: string; asset: string; balance: bigint }> = [];
  // endTime is exclusive: the instant itself is included.
  const filters = { address: source.address, query: source.query, endTime: new Date(pit.getTime() + 1), insertionDate: true };
  let position: { key: unknown[]; dir: 'next' } | undefined;
  for (;;) {
    const page = await listVolumes(db, source.ledger, filters, { pageSize: PAGE, ...(position ? { position } : {}) });
    for (const row of page.items) balances.push({ account: row.account, asset: row.asset, balance: row.balance });
    if (!page.hasNext || page.items.length === 0) break;
    const last = page.items[page.items.length - 1];
    position = { key: [last.account, last.asset], dir: 'next' };
  }
  return { type: 'ledger', balances };
}
