import { Context } from '@temporalio/activity';
import type { Db, Executor } from '../../db/knex';
import { inInstanceFence, recordStageEnded } from '../../areas/orchestration';
import type { StepOptions, StepResult } from '../../lib/orchestration/steps';
import { classified, withIdempotencyKey } from './failures';

type Step = (input: never, db: Executor) => Promise<unknown>;

/**
 * The steps that write (money, metadata, a provider transfer): they run inside their instance's abort fence
 * (inInstanceFence), so none commits after the instance's abort was answered. Reads need no fence.
 */
const WRITES: ReadonlySet<string> = new Set([
  'AddAccountMetadata',
  'CreateTransaction',
  'CreditWallet',
  'DebitWallet',
  'ConfirmHold',
  'VoidHold',
  'ProviderTransfer',
]);

/** The instance a step belongs to: given by the workflow, else (a step scheduled before it gave it) its workflow id. */
const instanceOf = (options: StepOptions): string =>
  options.instanceID ?? options.ends?.instanceID ?? Context.current().info.workflowExecution?.workflowId ?? '';

/**
 * Wraps business activities into steps: each runs under the step's idempotency key and, if it is its stage's last,
 * records the stage's end once the call succeeded (conditional and idempotent, as every read-model write). A write
 * step and its stage's end are one database transaction, inside the instance's abort fence: an abort answered before
 * it commits refuses it (ABORTED, not retried), one answered after finds the stage ended with it. The result carries
 * the step's start and end on the worker's clock, which op 14 shows (a marker's or an event's time is when Temporal
 * recorded the step, later).
 */
export function asSteps<A extends Record<string, Step>>(db: Db, activities: A): A {
  const wrapped = Object.entries(activities).map(([name, activity]) => [
    name,
    async (input: never, options: StepOptions): Promise<StepResult<unknown>> => {
      const startedAt = new Date();
      let ended: StepResult<unknown>['ended'];
      const finish = async (executor: Executor) => {
        if (!options.ends) return;
        // A repeated step (its first attempt committed, then its result was lost) reports the end stored first, so
        // op 13 and the read model agree.
        const { endedAt } = await recordStageEnded(executor, { ...options.ends, at: new Date() });
        ended = { number: options.ends.number, at: endedAt.toISOString() };
      };
      const output = await withIdempotencyKey(options.key, () =>
        WRITES.has(name)
          ? classified(() =>
              inInstanceFence(db, instanceOf(options), async (trx) => {
                const written = await activity(input, trx);
                await finish(trx);
                return written;
              }),
            )
          : activity(input, db).then(async (read) => {
              await finish(db);
              return read;
            }),
      );
      const finishedAt = ended?.at ?? new Date().toISOString();
      return { id: options.id, input, output, startedAt: startedAt.toISOString(), finishedAt, ...(ended ? { ended } : {}) };
    },
  ]);
  return Object.fromEntries(wrapped) as A;
}
