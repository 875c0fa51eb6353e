import {
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  condition,
  defineSignal,
  isCancellation,
  proxyLocalActivities,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import type { OrchestrationActivities } from '../../activities/orchestration';
import { describeStage, type ResolvedStage } from '../../lib/orchestration/config';
import { LOCAL_BOOKKEEPING_OPTIONS } from './retry';
import { runSend } from './send';
import { failureCode, failureMessage, StageContext } from './stage-context';
import { ABORTED } from '../../lib/orchestration/failure-codes';
import { parseGoDuration } from '../../lib/orchestration/stage-parse';

export interface InstanceInput {
  instanceID: string;
  workflowID: string;
  stages: Array<Record<string, unknown>>;
  variables: Record<string, string>;
  /** When the API recorded stage 0's start (and STARTED_WORKFLOW_STAGE) with the instance row; op 13 reads it here. */
  firstStageStartedAt: string;
}

/** `POST .../instances/{id}/events {name}` arrives as this signal. */
export const eventSignal = defineSignal<[{ name: string }]>('event');

/** The message a stage and the instance carry when the instance is aborted (Formance: "canceled"). */
export const CANCELED = 'canceled';

/**
 * Local activities: a read-model write runs inside the workflow task that reaches it, so it costs the Temporal server
 * no task round trip of its own.
 */
const bookkeeping = proxyLocalActivities<OrchestrationActivities>(LOCAL_BOOKKEEPING_OPTIONS);
const now = () => new Date(Date.now()).toISOString();

/**
 * One workflow instance = this Temporal workflow, with id = the instance id. Stages run in order; stage N's steps are
 * `s<N>-<k>-<Name>` (StageContext; op 14). Each read-model mark is made where it costs the run no extra activation:
 * stage 0's start by the API with the instance row, a later stage's start by the local activity
 * orchestrationStageStarted (its result carries the stage's name and resolved input for op 13), a stage's successful
 * end by its last step, and any other end (a failed or aborted stage, a stage without steps) by the local activity
 * orchestrationStageEnded. The stage that ends the run ends the instance in the same write. A one-step run is thus one
 * workflow task: start, one local activity, complete. The first failing stage ends the run; an abort (cancellation)
 * ends the running stage and the run with "canceled". Marks are written in non-cancellable scopes so an abort cannot
 * skip them.
 */
export async function orchestrationInstance(input: InstanceInput): Promise<void> {
  // Events are queued, not matched on arrival: one sent before its wait_event stage starts is kept for it.
  const events: string[] = [];
  setHandler(eventSignal, ({ name }) => void events.push(name));
  const base = { instanceID: input.instanceID, workflowID: input.workflowID };
  if (input.stages.length === 0) {
    // No stage to end the instance with.
    await CancellationScope.nonCancellable(() => bookkeeping.orchestrationInstanceEnded({ instanceID: input.instanceID, at: now() }));
    return;
  }
  let failure: string | undefined;
  let cancellation: unknown;

  for (let number = 0; number < input.stages.length && failure === undefined; number++) {
    const { name, input: stageInput, stage, error: invalid } = describeStage(input.stages[number], number, input.variables);
    const lastStage = number === input.stages.length - 1;
    if (number > 0) {
      await CancellationScope.nonCancellable(() => bookkeeping.orchestrationStageStarted({ ...base, number, name, input: stageInput, at: now() }));
    }
    const ctx = new StageContext({ ...base, number, ...(lastStage ? { endsInstance: true } : {}) });
    let error = invalid;
    if (stage) {
      try {
        // A stage with nothing to wait on (noop) would not notice an abort requested between two stages.
        if (CancellationScope.current().consideredCancelled) throw new CancelledFailure(CANCELED);
        await runStage(stage, ctx, events);
      } catch (e) {
        // An abort ends the stage as canceled however the step learnt of it: the cancellation, a step refused by
        // the abort fence (ABORTED), or a step that failed once the abort was requested. A step may also still be
        // running when the cancellation resolves (Temporal records an attempt's start only when it ends): the fence
        // decides whether it commits, and the stage's end it writes then stands (orchestrationStageEnded reports it).
        const cancelled = isCancellation(e) || CancellationScope.current().consideredCancelled;
        if (cancelled) cancellation = isCancellation(e) ? e : new CancelledFailure(CANCELED);
        error = cancelled || failureCode(e) === ABORTED ? CANCELED : failureMessage(e);
      }
    }
    if (error !== undefined || !ctx.endRecorded) {
      const endsInstance = error !== undefined || lastStage;
      await CancellationScope.nonCancellable(() =>
        bookkeeping.orchestrationStageEnded({
          ...base,
          number,
          at: now(),
          ...(error !== undefined ? { error } : {}),
          ...(endsInstance ? { endsInstance } : {}),
        }),
      );
    }
    failure = error;
  }

  // The Temporal status mirrors the instance's, so the Web UI shows failed and aborted runs as such (a run stopped by
  // the abort fence alone, its cancellation not delivered, fails with "canceled").
  if (cancellation !== undefined) throw cancellation;
  if (failure !== undefined) throw ApplicationFailure.create({ message: failure, type: 'STAGE_FAILED', nonRetryable: true });
}

async function runStage(stage: ResolvedStage, ctx: StageContext, events: string[]): Promise<void> {
  switch (stage.type) {
    case 'noop':
      return;
    case 'delay': {
      const ms =
        stage.spec.duration !== undefined ? (parseGoDuration(stage.spec.duration) ?? 0) : Date.parse(stage.spec.until as string) - Date.now();
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
