import type { Client } from '@temporalio/client';
import type { Db } from '../../db/knex';
import type { EventEnvelope } from '../../db/events/envelope';
import { matchTriggers } from '../../db/orchestration/trigger-occurrences';
import { recordInstanceEnded, recordStageEnded, recordStageStarted, type StageMark } from '../../db/orchestration/read-model';
import { createLedgerActivities } from './ledger';
import { createPaymentActivities } from './payments';
import { createWalletActivities } from './wallets';

/**
 * Every activity of the orchestration instance workflow: the business ones under the spec's names, and the read-model
 * writes (camelCase, so an operator tells them apart in the Web UI).
 */
export function createOrchestrationActivities(deps: { db: Db; temporal: { client: Client; taskQueue: string } }) {
  return {
    ...createLedgerActivities(deps.db),
    ...createWalletActivities(deps.db),
    ...createPaymentActivities(deps),
    async orchestrationStageStarted(mark: StageMark & { name: string; input: unknown }): Promise<void> {
      // name and input are not stored: they are in this activity's scheduled event, where op 13 reads them.
      await recordStageStarted(deps.db, mark);
    },
    async orchestrationStageEnded(mark: StageMark & { error?: string }): Promise<void> {
      await recordStageEnded(deps.db, mark);
    },
    /** The trigger step of the per-event workflow; returns how many occurrences the event has. */
    async matchTriggers(event: EventEnvelope): Promise<number> {
      return (await matchTriggers(deps, event)).length;
    },
    async orchestrationInstanceEnded(mark: { instanceID: string; error?: string; at: string }): Promise<void> {
      await recordInstanceEnded(deps.db, mark);
    },
  };
}

export type OrchestrationActivities = ReturnType<typeof createOrchestrationActivities>;
