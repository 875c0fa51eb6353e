import type { Db } from '../../db/knex';
import { recordStageEnded } from '../../areas/orchestration';
import type { StepOptions, StepResult } from '../../lib/orchestration/steps';
import { withIdempotencyKey } from './failures';

type Step = (input: never) => Promise<unknown>;

/**
 * Wraps business activities into steps: each runs under the step's idempotency key and, if it is its stage's last,
 * records the stage's end once the call succeeded (conditional and idempotent, as every read-model write).
 */
export function asSteps<A extends Record<string, Step>>(db: Db, activities: A): A {
  const wrapped = Object.entries(activities).map(([name, activity]) => [
    name,
    async (input: never, options: StepOptions): Promise<StepResult<unknown>> => {
      const output = await withIdempotencyKey(options.key, () => activity(input));
      const result: StepResult<unknown> = { id: options.id, input, output };
      if (options.ends) {
        const at = new Date();
        // A repeated step (its first attempt committed, then its result was lost) reports the end time stored first,
        // so op 13 and the read model agree.
        const { alreadyEndedAt } = await recordStageEnded(db, { ...options.ends, at });
        result.ended = { number: options.ends.number, at: (alreadyEndedAt ?? at).toISOString() };
      }
      return result;
    },
  ]);
  return Object.fromEntries(wrapped) as A;
}
