import type { Client } from '@temporalio/client';
import type { Db } from '../../db/knex';
import { recordInstanceEnded, recordStageEnded, recordStageStarted, type StageMark } from '../../areas/orchestration';
import { createLedgerActivities } from './ledger';
import { createPaymentActivities } from './payments';
import { asSteps } from './steps';
import { createWalletActivities } from './wallets';

/**
 * Every activity of the orchestration instance workflow: the business ones under the spec's names, and the read-model
 * writes (camelCase, so an operator tells them apart in the Web UI).
 */
export function createOrchestrationActivities(deps: { db: Db; temporal: { client: Client; taskQueue: string } }) {
  return {
    ...asSteps(deps.db, { ...createLedgerActivities(), ...createWalletActivities(), ...createPaymentActivities(deps) }),
    /**
     * name and input are not stored in PostgreSQL: op 13 reads them from the history, where a local activity leaves
     * only its result (hence the echo).
     */
    async orchestrationStageStarted<M extends StageMark & { name: string; input: unknown }>(mark: M): Promise<M> {
      // The time stored (never before the previous stage's end), so op 13 shows what the read model shows.
      const { startedAt } = await recordStageStarted(deps.db, mark);
      return { ...mark, at: startedAt.toISOString() };
    },
    /** With `endsInstance`, the instance ends too (with the stage's error), in the same transaction. */
    async orchestrationStageEnded<M extends StageMark & { error?: string; endsInstance?: boolean }>(mark: M): Promise<M> {
      // The stage's end as stored, for op 13: a stage whose last step committed (and ended it) just before an abort
      // stays ended without error, though the workflow, cancelled, reports it canceled.
      const { endedAt, error } = await recordStageEnded(deps.db, mark);
      const { error: _reported, ...rest } = mark;
      return { ...rest, at: endedAt.toISOString(), ...(error !== undefined ? { error } : {}) } as M;
    },
    /** The end of a run without stages (every other run's instance ends with its last stage). */
    async orchestrationInstanceEnded(mark: { instanceID: string; at: string }): Promise<void> {
      await recordInstanceEnded(deps.db, mark);
    },
  };
}

export type OrchestrationActivities = ReturnType<typeof createOrchestrationActivities>;
