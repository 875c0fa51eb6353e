import { ActivityFailure, ApplicationFailure, isCancellation, proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { OrchestrationActivities } from '../../activities/orchestration';
import type { StageEnd, StepOptions, StepResult } from '../../lib/orchestration/steps';
import { BUSINESS_ACTIVITY_OPTIONS, LOCAL_STEP_OPTIONS } from './retry';

type Activities = OrchestrationActivities;
type Call<K extends keyof Activities> = Promise<Awaited<ReturnType<Activities[K]>>>;
type Steps = Record<string, (input: unknown, options: StepOptions) => Promise<StepResult<unknown>>>;

/**
 * Steps that only touch this platform's database run their first attempt as a local activity (see StageContext);
 * ProviderTransfer calls a payment provider over the network, where a slow answer must not hold a workflow task.
 */
const REMOTE_STEPS: ReadonlySet<string> = new Set(['ProviderTransfer']);

/**
 * Runs the steps of one stage. Each gets the id `s<number>-<k>-<Name>`: op 14 selects a stage's steps by that prefix,
 * an operator reads stage and step in the Web UI, and the id (hence the idempotency key derived from it) is the same on
 * every replay because k counts calls in program order. A step is called as `Name(input, StepOptions)`:
 * - its first attempt is a local activity, run inside the workflow task that reaches it: no activity task goes
 *   through the Temporal server, which halves what a one-step stage costs the server. If that attempt fails for any
 *   reason, the step runs again as a regular activity with the business retry policy, so a step that waits (funds,
 *   a provider) or fails shows in op 14 and in the Web UI with its attempts, last failure and next retry.
 *   Both attempts carry the same idempotency key, so the ledger applies the step once whichever attempt got through.
 * - the stage's last step (`call(name, input, { last: true })`) also records the stage's end (and the instance's,
 *   for the last stage) once it succeeds, in the same activity: the workflow then has no bookkeeping activity left to
 *   run for that stage.
 */
export class StageContext {
  private calls = 0;
  /** True once a step recorded this stage's end in the read model. */
  endRecorded = false;

  constructor(private readonly stage: StageEnd) {}

  /** `last`: the stage's last step, after whose success nothing of the stage runs (it records the stage's end). */
  async call<K extends keyof Activities>(name: K, input: Parameters<Activities[K]>[0], { last = false } = {}): Call<K> {
    this.calls += 1;
    const { number } = this.stage;
    const id = `s${number}-${this.calls}-${String(name)}`;
    const summary = `stage ${number}: ${String(name)}`;
    const options: StepOptions = {
      id,
      key: `${workflowInfo().workflowId}-${id}`,
      instanceID: this.stage.instanceID,
      ...(last ? { ends: this.stage } : {}),
    };
    let result: StepResult<unknown> | undefined;
    if (!REMOTE_STEPS.has(String(name))) {
      const local = proxyLocalActivities({ ...LOCAL_STEP_OPTIONS, summary }) as Steps;
      try {
        result = await local[name as string](input, options);
      } catch (error) {
        if (isCancellation(error)) throw error;
      }
    }
    if (!result) {
      const regular = proxyActivities({ ...BUSINESS_ACTIVITY_OPTIONS, activityId: id, summary }) as Steps;
      result = await regular[name as string](input, options);
    }
    if (result.ended) this.endRecorded = true;
    return result.output as Awaited<ReturnType<Activities[K]>>;
  }
}

/** The message a stage reports for a failure: the business error's own message, not the SDK's wrapper. */
export function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** The ApiError code an activity failed with (its ApplicationFailure type), if any. */
export function failureCode(error: unknown): string | undefined {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
}

/** A stage failure decided by the workflow itself (e.g. a wallet name that matches nothing). */
export const stageFailure = (message: string, code = 'VALIDATION') => ApplicationFailure.nonRetryable(message, code);
