import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/knex';
import { createPool, upsertBalances } from '../../areas/payments';
import { seedConnector } from './payments';

/**
 * A simulated provider side for reconciliation tests: a connector with one account in a pool, whose balance the test
 * sets as a connector's balance fetch would (upsertBalances), so it can drift from the ledger on purpose.
 */
export async function simulatedPool(db: Db, asset = 'USD/2'): Promise<{ poolID: string; setBalance(amount: bigint): Promise<void> }> {
  const reference = `bank-${randomUUID().slice(0, 8)}`;
  const { connectorID, accountIDs } = await seedConnector(db, [{ reference }]);
  const poolID = await createPool(db, { name: `pool-${reference}`, accountIDs });
  return {
    poolID,
    async setBalance(amount: bigint) {
      await upsertBalances(db, connectorID, 'simulated', [{ accountReference: reference, asset, amount }]);
    },
  };
}

/** The reconciliation events of the outbox whose payload mentions `id` (a rule's or an alert's), oldest first. */
export async function reconciliationEvents(db: Db, id: string): Promise<Array<{ type: string; payload: any }>> {
  const rows = await db('events_outbox')
    .where({ app: 'reconciliation' })
    .whereRaw('payload::text LIKE ?', [`%${id}%`])
    .orderBy('seq')
    .select('type', 'payload');
  return rows.map((r: { type: string; payload: unknown }) => ({
    type: r.type,
    payload: typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload,
  }));
}
