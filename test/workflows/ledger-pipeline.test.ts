import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import type { PipelineBatchResult } from '../../activities/ledger';
import { currentCall, signalled, startWorkflowTier, workflowId, type WorkflowTier, type CallRecord } from './support';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let tier: WorkflowTier;
let env: TestWorkflowEnvironment;
beforeAll(async () => {
  tier = await startWorkflowTier(['exportPipelineBatch']);
  env = tier.env;
});
afterAll(async () => {
  await tier?.teardown();
});

/** A mock exportPipelineBatch answering from a script, one answer (or error) per call, recording each call. */
function scripted(answers: Array<PipelineBatchResult | Error>) {
  const calls: CallRecord[] = [];
  const exportPipelineBatch = async (pipelineId: string): Promise<PipelineBatchResult> => {
    expect(pipelineId).toBe('p1');
    calls.push(await currentCall(env));
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)];
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { calls, exportPipelineBatch };
}

const input = (overrides: Record<string, unknown> = {}) => ({ ledger: 'l1', pipelineId: 'p1', pollIntervalMs: HOUR, ...overrides });

describe('ledgerPipeline', () => {
  it('exports again at once while batches come back full, waits the poll interval once caught up, and ends on stop', async () => {
    const { calls, exportPipelineBatch } = scripted([
      { exported: 10 },
      { exported: 3 },
      { exported: 0 },
      { exported: 0 },
      { stop: 'stopped', exported: 0 },
    ]);
    await tier.run({ exportPipelineBatch }, (taskQueue) =>
      env.client.workflow.execute('ledgerPipeline', { taskQueue, workflowId: workflowId('ledger-pipeline'), args: [input()] }),
    );
    expect(calls).toHaveLength(5);
    const gaps = calls.slice(1).map((call, i) => call.at - calls[i].at);
    // After a batch with logs: the next at once. After an empty one: a whole poll interval (skipped, not waited).
    expect(gaps[0]).toBeLessThan(HOUR);
    expect(gaps[1]).toBeLessThan(HOUR);
    expect(gaps[2]).toBeGreaterThanOrEqual(HOUR);
    expect(gaps[3]).toBeGreaterThanOrEqual(HOUR);
  });

  it('a wake signal cuts the wait short', async () => {
    const secondCall = signalled();
    const { calls, exportPipelineBatch } = scripted([{ exported: 0 }, { exported: 0 }, { stop: 'deleted', exported: 0 }]);
    const mock = async (pipelineId: string) => {
      const result = await exportPipelineBatch(pipelineId);
      if (calls.length === 1) secondCall.resolve();
      return result;
    };
    await tier.run({ exportPipelineBatch: mock }, async (taskQueue) => {
      const handle = await env.client.workflow.start('ledgerPipeline', {
        taskQueue,
        workflowId: workflowId('ledger-pipeline'),
        args: [input({ pollIntervalMs: DAY })],
      });
      // The first batch was empty: the workflow now waits a day unless woken. Time only skips while a test awaits a
      // result, so without the signal the next batch would never come here.
      await secondCall.promise;
      await handle.signal('wake');
      await handle.result();
    });
    expect(calls).toHaveLength(3);
    expect(calls[1].at - calls[0].at).toBeLessThan(DAY);
  });

  it('continues as new after iterationsPerRun batches, with the same input', async () => {
    const { calls, exportPipelineBatch } = scripted([
      { exported: 1 },
      { exported: 1 },
      { exported: 1 },
      { exported: 1 },
      { stop: 'stopped', exported: 0 },
    ]);
    await tier.run({ exportPipelineBatch }, (taskQueue) =>
      env.client.workflow.execute('ledgerPipeline', { taskQueue, workflowId: workflowId('ledger-pipeline'), args: [input({ iterationsPerRun: 2 })] }),
    );
    const runs = calls.map((call) => call.runId);
    expect(runs).toHaveLength(5);
    // Runs of two batches each: a new run id every second call.
    expect(new Set(runs).size).toBe(3);
    expect([runs[0] === runs[1], runs[1] === runs[2], runs[2] === runs[3], runs[3] === runs[4]]).toEqual([true, false, true, false]);
  });

  it('retries a failing batch with backoff from 1 s, doubling, with no attempt limit', async () => {
    const down = ApplicationFailure.create({ message: 'target down' });
    const { calls, exportPipelineBatch } = scripted([down, down, down, down, down, down, down, { stop: 'stopped', exported: 0 }]);
    await tier.run({ exportPipelineBatch }, (taskQueue) =>
      env.client.workflow.execute('ledgerPipeline', { taskQueue, workflowId: workflowId('ledger-pipeline'), args: [input()] }),
    );
    expect(calls.map((c) => c.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const waits = calls.slice(1).map((call, i) => call.at - calls[i].at);
    // 1, 2, 4, 8, 16 s, then capped at 30 s (each wait at least its interval; skipped, so none is really waited).
    [1000, 2000, 4000, 8000, 16000, 30000, 30000].forEach((interval, i) => expect(waits[i]).toBeGreaterThanOrEqual(interval));
    expect(waits[6]).toBeLessThan(60_000);
  });
});
