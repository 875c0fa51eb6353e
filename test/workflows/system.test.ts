import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { startWorkflowTier, workflowId, type WorkflowTier } from './support';

let tier: WorkflowTier;
let env: TestWorkflowEnvironment;
beforeAll(async () => {
  tier = await startWorkflowTier(['echo']);
  env = tier.env;
});
afterAll(async () => {
  await tier?.teardown();
});

describe('platformNoop', () => {
  it('completes with no result and runs no activity', async () => {
    const result = await tier.run({}, (taskQueue) => env.client.workflow.execute('platformNoop', { taskQueue, workflowId: workflowId('noop') }));
    expect(result).toBeUndefined();
  });
});

describe('platformSelfTest', () => {
  it('returns what the echo activity answered', async () => {
    const echo = jest.fn(async (message: string) => ({ echoed: message, databaseTime: '2026-01-01T00:00:00.000Z' }));
    const result = await tier.run({ echo }, (taskQueue) =>
      env.client.workflow.execute('platformSelfTest', { taskQueue, workflowId: workflowId('self-test'), args: ['ping'] }),
    );
    expect(result).toEqual({ echoed: 'ping', databaseTime: '2026-01-01T00:00:00.000Z' });
    expect(echo).toHaveBeenCalledTimes(1);
  });

  it('retries the echo three times in all, then fails with its error', async () => {
    const echo = jest.fn(async () => {
      throw ApplicationFailure.create({ message: 'database down', type: 'SERVICE_UNAVAILABLE' });
    });
    const run = tier.run({ echo }, (taskQueue) =>
      env.client.workflow.execute('platformSelfTest', { taskQueue, workflowId: workflowId('self-test'), args: ['ping'] }),
    );
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(((error as WorkflowFailedError).cause?.cause as ApplicationFailure).message).toBe('database down');
    expect(echo).toHaveBeenCalledTimes(3);
  });
});
