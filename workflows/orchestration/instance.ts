import {
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  condition,
  defineSignal,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import type { OrchestrationActivities } from '../../activities/orchestration';
import { describeStage, type ResolvedStage } from './config';
import { INTERNAL_ACTIVITY_OPTIONS, LOCAL_BOOKKEEPING_OPTIONS } from './retry';
import { runSend } from './send';
import { failureMessage, StageContext } from './stage-context';
import { parseGoDuration } from './stage-parse';

export interface InstanceInput {
  instanceID: string;
  workflowID: string;
  stages: Array<Record<string, unknown>>;
  variables: Record<string, string>;
  /** 'local' for runs started since the stage bookkeeping moved to local activities; absent on older runs. */
  bookkeeping?: 'local';
  /**
   * 'local-first' for runs started since steps run their first attempt locally and the last step of a stage records
   * the stage's end (StageContext); absent on older runs, which replay as they ran.
   */
  execution?: 'local-first';
  /**
   * With 'local-first': the API recorded stage 0's start (and STARTED_WORKFLOW_STAGE) at this time, with the instance
   * row, so the workflow does not; op 13 derives stage 0's name and input from this input.
   */
  firstStageStartedAt?: string;
}

/** `POST .../instances/{id}/events {name}` arrives as this signal. */
export const eventSignal = defineSignal<[{ name: string }]>('event');

/** The message a stage and the instance carry when the instance is aborted (Formance: "canceled"). */
export const CANCELED = 'canceled';

/**
 * Since `bookkeeping: 'local'` (set by every run the API starts now) the read-model writes are local activities: they
 * run inside the workflow task that reaches them, so a stage costs the Temporal server no extra task round trip per
 * write (a one-stage run went from four activities to one). Runs started before, without the field, replay with the
 * regular activities they recorded. An input field rather than patched(): the SDK upserts the TemporalChangeVersion
 * search attribute on every run that calls patched(), one more visibility write per run.
 */
type Bookkeeping = Pick<OrchestrationActivities, 'orchestrationStageStarted' | 'orchestrationStageEnded' | 'orchestrationInstanceEnded'>;
const local: Bookkeeping = proxyLocalActivities<OrchestrationActivities>(LOCAL_BOOKKEEPING_OPTIONS);
const regular = (activityId: string): Bookkeeping => proxyActivities<OrchestrationActivities>({ ...INTERNAL_ACTIVITY_OPTIONS, activityId });
const now = () => new Date(Date.now()).toISOString();

/**
 * One workflow instance = this Temporal workflow, with id = the instance id. Stages run in order; stage N is framed by
 * the local activities orchestrationStageStarted (its result, in the history's marker, carries the stage's name and
 * resolved input for op 13) and orchestrationStageEnded (its outcome), and its own activities are `s<N>-<k>-<Name>`
 * (op 14). The first failing stage ends the run; an abort (cancellation) ends the running stage
 * and the run with "canceled". The read model is written in non-cancellable scopes so an abort cannot skip it.
 * With `execution: 'local-first'` two of those marks are made elsewhere, each saving the workflow an activation: stage
 * 0's start by the API with the instance row, and a stage's successful end by its last step (StageContext.call with `last`). A
 * one-step run is then one workflow task: start, one local activity, complete.
 */
export async function orchestrationInstance(input: InstanceInput): Promise<void> {
  // Events are queued, not matched on arrival: one sent before its wait_event stage starts is kept for it.
  const events: string[] = [];
  setHandler(eventSignal, ({ name }) => void events.push(name));
  const base = { instanceID: input.instanceID, workflowID: input.workflowID };
  const useLocal = input.bookkeeping === 'local';
  const localFirst = useLocal && input.execution === 'local-first';
  const bookkeeping = (activityId: string) => (useLocal ? local : regular(activityId));
  let failure: string | undefined;
  let cancellation: unknown;
  let instanceEndRecorded = false;

  for (let number = 0; number < input.stages.length && failure === undefined; number++) {
    const { name, input: stageInput, stage, error: invalid } = describeStage(input.stages[number], number, input.variables);
    let error = invalid;
    const lastStage = number === input.stages.length - 1;
    if (!(localFirst && number === 0)) {
      await CancellationScope.nonCancellable(() =>
        bookkeeping(`s${number}-start`).orchestrationStageStarted({ ...base, number, name, input: stageInput, at: now() }),
      );
    }
    const ctx = new StageContext(number, localFirst ? { ...base, number, ...(lastStage ? { endsInstance: true } : {}) } : undefined);
    if (stage) {
      try {
        // A stage with nothing to wait on (noop) would not notice an abort requested between two stages.
        if (CancellationScope.current().consideredCancelled) throw new CancelledFailure(CANCELED);
        await runStage(stage, ctx, events);
      } catch (e) {
        if (isCancellation(e)) cancellation = e;
        error = isCancellation(e) ? CANCELED : failureMessage(e);
      }
    }
    // The stage that ends the run also ends the instance, in the same write: one local activity fewer per run.
    const endsInstance = useLocal && (error !== undefined || lastStage);
    if (error !== undefined || !ctx.endRecorded) {
      await CancellationScope.nonCancellable(() =>
        bookkeeping(`s${number}-end`).orchestrationStageEnded({ ...base, number, at: now(), ...(error !== undefined ? { error } : {}), ...(endsInstance ? { endsInstance } : {}) }),
      );
    }
    instanceEndRecorded = endsInstance;
    failure = error;
  }

  if (!instanceEndRecorded) {
    await CancellationScope.nonCancellable(() =>
      bookkeeping('end').orchestrationInstanceEnded({ instanceID: input.instanceID, at: now(), ...(failure !== undefined ? { error: failure } : {}) }),
    );
  }
  // The Temporal status mirrors the instance's, so the Web UI shows failed and aborted runs as such.
  if (cancellation !== undefined) throw cancellation;
  if (failure !== undefined) throw ApplicationFailure.create({ message: failure, type: 'STAGE_FAILED', nonRetryable: true });
}

async function runStage(stage: ResolvedStage, ctx: StageContext, events: string[]): Promise<void> {
  switch (stage.type) {
    case 'noop':
      return;
    case 'delay': {
      const ms = stage.spec.duration !== undefined ? (parseGoDuration(stage.spec.duration) ?? 0) : Date.parse(stage.spec.until as string) - Date.now();
      if (ms > 0) await sleep(ms);
      return;
    }
    case 'wait_event': {
      const wanted = stage.spec.event;
      await condition(() => events.includes(wanted));
      events.splice(events.indexOf(wanted), 1);
      return;
    }
    case 'update':
      await ctx.call('AddAccountMetadata', stage.spec.account, { last: true });
      return;
    case 'send':
      await runSend(stage.spec, ctx);
  }
}
