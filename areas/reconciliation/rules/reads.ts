import { listVolumes } from '../../ledger';
import { getPoolBalances } from '../../payments';
import type { Executor } from '../../../db/knex';
import type { Source, SourceRead } from './templates';

const PAGE = 1000;

/**
 * Reads one source as of `pit`. A ledger source is exact at any past instant: its balances are the sums of the
 * postings of the transactions inserted before `pit` (insertion date, so a transaction backdated after `pit` is not
 * seen, as it was not there then). A pool source reads the pool's latest fetched balances: the payments area keeps
 * no history of balances, so its point in time is the observation, and `observedAt` says when that was.
 */
export async function readSource(db: Executor, source: Source, pit: Date): Promise<{ read: SourceRead; observedAt: Date }> {
  if (source.type === 'pool') {
    const observedAt = new Date();
    const rows = await getPoolBalances(db, source.poolID);
    return { read: { type: 'pool', balances: new Map(rows.map((r) => [r.asset, r.amount])) }, observedAt };
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
  return { read: { type: 'ledger', balances }, observedAt: pit };
}
