import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import type { EventEnvelope } from '../../areas/events';
import { webhookTaskQueue } from '../../lib/webhooks/task-queue';
import { currentCall, startWorkflowTier, workflowId, type WorkflowTier, type CallRecord } from './support';

let tier: WorkflowTier;
let env: TestWorkflowEnvironment;
beforeAll(async () => {
  tier = await startWorkflowTier(
    ['sendTestWebhook', 'webhookEndpointStep', 'planWebhookBatch', 'sendWebhookBatch', 'matchTriggersBatch'],
    [webhookTaskQueue],
  );
  env = tier.env;
});
afterAll(async () => {
  await tier?.teardown();
});

const gaps = (calls: CallRecord[]) => calls.slice(1).map((call, i) => call.at - calls[i].at);

describe('testWebhook', () => {
  it('sends once and returns the attempt, and a failure is not retried', async () => {
    const attempt = { id: 'a1', statusCode: 200 };
    const ok = await tier.run({ sendTestWebhook: async (configId: string) => ({ ...attempt, configId }) }, (taskQueue) =>
      env.client.workflow.execute('testWebhook', { taskQueue, workflowId: workflowId('test-webhook'), args: ['c1'] }),
    );
    expect(ok).toEqual({ ...attempt, configId: 'c1' });

    const sendTestWebhook = jest.fn(async () => {
      throw ApplicationFailure.create({ message: 'refused' });
    });
    const failed = tier.run({ sendTestWebhook }, (taskQueue) =>
      env.client.workflow.execute('testWebhook', { taskQueue, workflowId: workflowId('test-webhook'), args: ['c1'] }),
    );
    await expect(failed).rejects.toThrow();
    expect(sendTestWebhook).toHaveBeenCalledTimes(1);
  });
});

describe('webhookEndpoint', () => {
  it("runs steps, sleeping each step's delay, until one says done", async () => {
    const answers = [
      { done: false, delayMs: 0 },
      { done: false, delayMs: 600_000 },
      { done: false, delayMs: 0 },
      { done: true, delayMs: 0 },
    ];
    const calls: CallRecord[] = [];
    const webhookEndpointStep = async (configId: string, episode: number) => {
      expect([configId, episode]).toEqual(['c1', 7]);
      calls.push(await currentCall(env));
      return answers[calls.length - 1];
    };
    await tier.run({ webhookEndpointStep }, (taskQueue) =>
      env.client.workflow.execute('webhookEndpoint', {
        taskQueue,
        workflowId: workflowId('webhook-endpoint'),
        args: [{ configId: 'c1', episode: 7, httpTimeoutMs: 5000 }],
      }),
    );
    expect(calls).toHaveLength(4);
    const waits = gaps(calls);
    expect(waits[0]).toBeLessThan(600_000);
    expect(waits[1]).toBeGreaterThanOrEqual(600_000);
    expect(waits[2]).toBeLessThan(600_000);
  });

  it('continues as new after 100 steps (a long outage keeps its history bounded)', async () => {
    const calls: CallRecord[] = [];
    const webhookEndpointStep = async () => {
      calls.push(await currentCall(env));
      return calls.length > 150 ? { done: true, delayMs: 0 } : { done: false, delayMs: 1000 };
    };
    await tier.run({ webhookEndpointStep }, (taskQueue) =>
      env.client.workflow.execute('webhookEndpoint', {
        taskQueue,
        workflowId: workflowId('webhook-endpoint'),
        args: [{ configId: 'c1', episode: 1, httpTimeoutMs: 5000 }],
      }),
    );
    expect(calls).toHaveLength(151);
    expect(new Set(calls.slice(0, 100).map((c) => c.runId)).size).toBe(1);
    expect(calls[100].runId).not.toBe(calls[99].runId);
  });
});

describe('processEventBatch', () => {
  const event = (id: string): EventEnvelope => ({
    id,
    date: '2026-01-01T00:00:00Z',
    app: 'ledger',
    version: 'v2',
    type: 'COMMITTED_TRANSACTIONS',
    payload: '{}',
  });
  const batchPlan = { httpTimeoutMs: 5000, concurrency: 4 };

  it('plans and sends the webhooks on the webhook task queue, and matches triggers, for the whole batch', async () => {
    const events = [event('1'), event('2')];
    const queues: string[] = [];
    const activities = {
      planWebhookBatch: jest.fn(async (batch: EventEnvelope[]) => ({
        ...batchPlan,
        deliveries: batch.map((e) => ({ deliveryId: `d${e.id}`, configId: 'c1', eventId: e.id, eventType: e.type })),
      })),
      sendWebhookBatch: jest.fn(async () => {
        const { Context } = await import('@temporalio/activity');
        queues.push(Context.current().info.taskQueue);
      }),
      matchTriggersBatch: jest.fn(async () => undefined),
    };
    let platformQueue = '';
    await tier.run(activities, (taskQueue) => {
      platformQueue = taskQueue;
      return env.client.workflow.execute('processEventBatch', { taskQueue, workflowId: workflowId('events'), args: [events] });
    });
    expect(activities.planWebhookBatch).toHaveBeenCalledWith(events);
    expect(activities.matchTriggersBatch).toHaveBeenCalledWith(events);
    expect(activities.sendWebhookBatch).toHaveBeenCalledWith(['d1', 'd2']);
    expect(queues).toEqual([webhookTaskQueue(platformQueue)]);
  });

  it('a batch without deliveries sends nothing', async () => {
    const activities = {
      planWebhookBatch: async () => ({ ...batchPlan, deliveries: [] }),
      sendWebhookBatch: jest.fn(),
      matchTriggersBatch: jest.fn(async () => undefined),
    };
    await tier.run(activities, (taskQueue) =>
      env.client.workflow.execute('processEventBatch', { taskQueue, workflowId: workflowId('events'), args: [[event('1')]] }),
    );
    expect(activities.sendWebhookBatch).not.toHaveBeenCalled();
    expect(activities.matchTriggersBatch).toHaveBeenCalledTimes(1);
  });

  it('retries a failed trigger match with backoff from 1 s', async () => {
    const calls: CallRecord[] = [];
    const activities = {
      planWebhookBatch: async () => ({ ...batchPlan, deliveries: [] }),
      sendWebhookBatch: jest.fn(),
      matchTriggersBatch: async () => {
        calls.push(await currentCall(env));
        if (calls.length < 3) throw new Error('database down');
      },
    };
    await tier.run(activities, (taskQueue) =>
      env.client.workflow.execute('processEventBatch', { taskQueue, workflowId: workflowId('events'), args: [[event('1')]] }),
    );
    expect(calls.map((c) => c.attempt)).toEqual([1, 2, 3]);
  });
});
