/**
 * The contract between the orchestration workflow and its steps (activities), shared by both sides and by the area
 * that reads their history back: pure types and constants, no I/O, so the workflow sandbox can import it.
 */

/** The ledger a cross-ledger send moves through (world on both sides), created on first use. */
export const INTERNAL_LEDGER = 'orchestration-000-internal';

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
  /** The instance whose abort fence a writing step runs in (absent from steps scheduled before it was given). */
  instanceID?: string;
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
  /** The step's run on the worker's clock (absent from results recorded before they were given): op 14's times. */
  startedAt?: string;
  finishedAt?: string;
  ended?: { number: number; at: string };
}
