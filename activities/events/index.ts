import type { Client } from '@temporalio/client';
import type { Db } from '../../db/knex';
import type { EventEnvelope } from '../../areas/events';
import { matchTriggers } from '../../areas/orchestration';

/** Activities of the event batch workflow that are not about webhooks. */
export function createEventActivities(deps: { db: Db; temporal: { client: Client; taskQueue: string } }) {
  return {
    /**
     * The trigger step for a batch of events: one query finds the event types live triggers listen to, then each
     * event of those types goes through matchTriggers (idempotent per (trigger, event), so a retry starts nothing
     * twice). Most batches match no trigger, and then this is the one query.
     * @returns how many occurrences the batch's events have.
     */
    async matchTriggersBatch(events: EventEnvelope[]): Promise<number> {
      const { rows } = await deps.db.raw(`SELECT DISTINCT event AS type FROM orchestration_triggers WHERE deleted_at IS NULL`);
      const types = new Set<string>(rows.map((r: { type: string }) => r.type));
      let occurrences = 0;
      for (const event of events) {
        if (types.has(event.type)) occurrences += (await matchTriggers(deps, event)).length;
      }
      return occurrences;
    },
  };
}

export type EventActivities = ReturnType<typeof createEventActivities>;
