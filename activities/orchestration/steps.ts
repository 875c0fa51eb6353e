import type { Db } from '../../db/knex';
import { recordStageEnded } from '../../areas/orchestration';
import { withIdempotencyKey } from './failures';

/** Which stage a step ends, when it is its stage's last (the read-model mark without its time). */
export interface StageEnd {
  instanceID: string;
  workflowID: string;
  number: number;
  /** The stage is the run's last: the instance ends with it. */
  endsInstance?: boolean;
}

/** The second argument of every step (StageContext). */
export interface StepOptions {
  /** `s<N>-<k>-<Name>`: op 14 finds a local attempt's step by it (a local activity's own id is a sequence number). */
  id: string;
  key: string;
  ends?: StageEnd;
}

/**
 * What such a step returns. A local activity leaves only its result in the history, so the result repeats the input
 * for op 14; `ended` says the step recorded its stage's end, for op 13 and for the workflow.
 */
export interface StepResult<T> {
  id: string;
  input: unknown;
  output: T;
  ended?: { number: number; at: string };
}

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
