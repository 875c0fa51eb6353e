import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { StepOptions } from '../../lib/orchestration/steps';
import { currentCall, startWorkflowTier, workflowId, type CallRecord, type WorkflowTier } from './support';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let tier: WorkflowTier;
let env: TestWorkflowEnvironment;
beforeAll(async () => {
  tier = await startWorkflowTier([
    'orchestrationStageStarted',
    'orchestrationStageEnded',
    'orchestrationInstanceEnded',
    'CreateTransaction',
    'AddAccountMetadata',
  ]);
  env = tier.env;
});
afterAll(async () => {
  await tier?.teardown();
});

type Mark = { number: number; error?: string; endsInstance?: boolean };

/** Bookkeeping mocks that record the marks, and a CreateTransaction step whose attempts `step` decides. */
function mocks(step: (call: CallRecord, options: StepOptions) => void = () => undefined) {
  const marks: Array<[string, Mark & { at?: string }]> = [];
  const steps: Array<CallRecord & { options: StepOptions; postings: unknown }> = [];
  return {
    marks,
    steps,
    activities: {
      orchestrationStageStarted: async (mark: Mark) => (marks.push(['started', mark]), mark),
      orchestrationStageEnded: async (mark: Mark) => (marks.push(['ended', mark]), mark),
      orchestrationInstanceEnded: async (mark: Mark) => void marks.push(['instanceEnded', mark]),
      CreateTransaction: async (input: { data: { postings: unknown } }, options: StepOptions) => {
        const call = await currentCall(env);
        steps.push({ ...call, options, postings: input.data.postings });
        step(call, options);
        return {
          id: options.id,
          input,
          output: { id: 1 },
          ...(options.ends ? { ended: { number: options.ends.number, at: new Date().toISOString() } } : {}),
        };
      },
    },
  };
}

const send = {
  send: {
    source: { account: { id: 'world', ledger: 'main' } },
    destination: { account: { id: 'users:1', ledger: 'main' } },
    amount: { asset: 'USD/2', amount: 100 },
  },
};
const input = (stages: unknown[]) => ({ instanceID: 'i1', workflowID: 'w1', stages, variables: {}, firstStageStartedAt: '2026-01-01T00:00:00Z' });
const start = (taskQueue: string, stages: unknown[]) =>
  env.client.workflow.start('orchestrationInstance', { taskQueue, workflowId: workflowId('instance'), args: [input(stages)] });

describe('orchestrationInstance', () => {
  it('a delay stage of a day delays the next stage by a day (skipped, not waited); the last step ends the instance', async () => {
    const { marks, steps, activities } = mocks();
    const startedAt = await env.currentTimeMs();
    await tier.run(activities, async (taskQueue) => (await start(taskQueue, [{ delay: { duration: '24h' } }, send])).result());
    expect(steps).toHaveLength(1);
    expect(steps[0].at - startedAt).toBeGreaterThanOrEqual(DAY);
    expect(steps[0].options).toEqual(
      expect.objectContaining({
        id: 's1-1-CreateTransaction',
        instanceID: 'i1',
        ends: { instanceID: 'i1', workflowID: 'w1', number: 1, endsInstance: true },
      }),
    );
    expect(steps[0].postings).toEqual([{ source: 'world', destination: 'users:1', asset: 'USD/2', amount: 100 }]);
    // Stage 0 (the delay) ends by a bookkeeping mark; stage 1 ends with its last step, so no mark of its own.
    expect(marks.map(([kind, mark]) => [kind, mark.number, mark.endsInstance ?? false])).toEqual([
      ['ended', 0, false],
      ['started', 1, false],
    ]);
  });

  it('a wait_event stage waits for its event; an event sent before the stage starts is kept for it', async () => {
    const { marks, activities } = mocks();
    await tier.run(activities, async (taskQueue) => {
      const handle = await start(taskQueue, [{ delay: { duration: '1h' } }, { wait_event: { event: 'confirmed' } }]);
      await handle.signal('event', { name: 'confirmed' });
      await handle.result();
    });
    expect(marks.map(([kind, mark]) => [kind, mark.number, mark.error])).toEqual([
      ['ended', 0, undefined],
      ['started', 1, undefined],
      ['ended', 1, undefined],
    ]);
    expect(marks.at(-1)?.[1].endsInstance).toBe(true);
  });

  it('a step that fails runs again as a regular activity, retried from 1 s doubling with no attempt limit', async () => {
    const { steps, activities } = mocks(() => {
      if (steps.length <= 5) throw ApplicationFailure.create({ message: 'insufficient funds', type: 'INSUFFICIENT_FUND' });
    });
    await tier.run(activities, async (taskQueue) => (await start(taskQueue, [send])).result());
    // The local first attempt, then attempts 1..5 of the regular activity.
    expect(steps.map((s) => s.attempt)).toEqual([1, 1, 2, 3, 4, 5]);
    const waits = steps.slice(2).map((s, i) => s.at - steps[i + 1].at);
    [1000, 2000, 4000, 8000].forEach((interval, i) => expect(waits[i]).toBeGreaterThanOrEqual(interval));
    expect(new Set(steps.map((s) => s.options.key)).size).toBe(1);
  });

  it("a non-retryable failure fails the stage and the instance with the step's message", async () => {
    const { marks, steps, activities } = mocks(() => {
      throw ApplicationFailure.create({ message: 'ledger main not found', type: 'LEDGER_NOT_FOUND' });
    });
    const error = await tier.run(activities, async (taskQueue) =>
      (await start(taskQueue, [send, send])).result().then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(((error as WorkflowFailedError).cause as ApplicationFailure).type).toBe('STAGE_FAILED');
    expect(steps).toHaveLength(2);
    expect(marks).toEqual([['ended', expect.objectContaining({ number: 0, error: 'ledger main not found', endsInstance: true })]]);
  });

  it('an abort ends the waiting stage and the instance as canceled', async () => {
    const { marks, activities } = mocks();
    const error = await tier.run(activities, async (taskQueue) => {
      const handle = await start(taskQueue, [{ wait_event: { event: 'never' } }, send]);
      await handle.cancel();
      return handle.result().then(
        () => undefined,
        (e: unknown) => e,
      );
    });
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect(marks).toEqual([['ended', expect.objectContaining({ number: 0, error: 'canceled', endsInstance: true })]]);
  });

  it('a run without stages ends the instance at once', async () => {
    const { marks, activities } = mocks();
    await tier.run(activities, async (taskQueue) => (await start(taskQueue, [])).result());
    expect(marks).toEqual([['instanceEnded', expect.objectContaining({ instanceID: 'i1' })]]);
  });

  it('a delay until a past date does not wait', async () => {
    const { steps, activities } = mocks();
    const startedAt = await env.currentTimeMs();
    await tier.run(activities, async (taskQueue) => (await start(taskQueue, [{ delay: { until: '2000-01-01T00:00:00Z' } }, send])).result());
    expect(steps[0].at - startedAt).toBeLessThan(HOUR);
  });
});
