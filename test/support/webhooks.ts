import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { isTruthy, pollUntil } from './eventually';

/**
 * Waits until nothing more can be sent for `eventIds` to `configIds`, so that what a receiver got is final: every
 * event dispatched, each batch workflow that carried them completed (it makes and records the first attempts), and no
 * drain running for those configs with none of those deliveries left pending (retries and replays only go out through
 * a config's drain, whose lease is taken in the transaction that queues them). A duplicate, or a delivery that should
 * not exist, would have been sent by then: this is the event an absence is checked after.
 */
export async function webhooksSettled(db: Knex, client: Client, eventIds: string[], configIds: string[]): Promise<void> {
  const batches = await pollUntil(
    async () => {
      const rows = await db('events_outbox').whereIn('id', eventIds).select('batch_id', 'dispatched_at');
      if (rows.length < eventIds.length || rows.some((r) => r.dispatched_at === null)) return undefined;
      // An event no active config listens to is marked dispatched in no batch: nothing is ever sent for it.
      return [...new Set(rows.map((r) => r.batch_id as string | null))].filter((batch) => batch !== null);
    },
    isTruthy,
    { what: 'every event dispatched' },
  );
  for (const batch of batches) await client.workflow.getHandle(`events-${batch}`).result();
  await pollUntil(
    async () => {
      const draining = await db('webhook_configs').whereIn('id', configIds).where('drain_running', true).first('id');
      const pending = await db('webhook_deliveries')
        .whereIn('event_id', eventIds)
        .whereIn('config_id', configIds)
        .where('status', 'pending')
        .first('id');
      return draining === undefined && pending === undefined;
    },
    isTruthy,
    { what: `the drains of ${configIds.join(', ')} to end with nothing pending` },
  );
}
