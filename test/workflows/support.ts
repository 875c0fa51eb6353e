import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Context } from '@temporalio/activity';
import { Worker } from '@temporalio/worker';
import { ApplicationFailure } from '@temporalio/common';
import { dataConverter } from '../../lib/temporal';

/**
 * Temporal's time-skipping test server (the executable found by the tier's global setup): awaiting a workflow's
 * result skips every timer and retry backoff, so a day-long delay or a minute of activity retries takes milliseconds.
 */
export async function startTimeSkipping(): Promise<TestWorkflowEnvironment> {
  const executable = process.env.TEMPORAL_TEST_SERVER;
  if (!executable) throw new Error('TEMPORAL_TEST_SERVER is unset: run this file through jest (the workflow tier global setup sets it)');
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: executable } },
    client: { dataConverter },
  });
}

type Mocks = Record<string, (...args: never[]) => unknown>;

export interface WorkflowTier {
  env: TestWorkflowEnvironment;
  /** Runs `body` (given the worker's task queue) with these mocks answering the activities; unlisted ones fail. */
  run<T>(mocks: object, body: (taskQueue: string) => Promise<T>): Promise<T>;
  teardown(): Promise<void>;
}

/**
 * One test server and one worker per test file (a worker loads the workflow bundle, which takes seconds): the worker
 * has the platform's workflow bundle and, for each activity name given, a stand-in that calls the current test's mock.
 * `alsoOn` names queues derived from the worker's (the webhook queue, e.g.) that a second worker serves too. A file's
 * tests run their workflows one at a time, since skipped time is global to the server.
 */
export async function startWorkflowTier(activityNames: string[], alsoOn: Array<(taskQueue: string) => string> = []): Promise<WorkflowTier> {
  const codePath = process.env.TEST_WORKFLOW_BUNDLE;
  if (!codePath) throw new Error('TEST_WORKFLOW_BUNDLE is unset: run this file through jest (the workflow tier global setup sets it)');
  const env = await startTimeSkipping();
  let current: Mocks = {};
  const activities = Object.fromEntries(
    activityNames.map((name) => [
      name,
      (...args: never[]) => {
        const mock = current[name];
        if (!mock) throw ApplicationFailure.nonRetryable(`the test gave no mock for activity ${name}`);
        return mock(...args);
      },
    ]),
  );
  const taskQueue = `workflow-test-${randomUUID()}`;
  const queues = [taskQueue, ...alsoOn.map((derive) => derive(taskQueue))];
  const workers = await Promise.all(
    queues.map((queue) =>
      Worker.create({ connection: env.nativeConnection, taskQueue: queue, workflowBundle: { codePath }, activities, dataConverter }),
    ),
  );
  const running = Promise.all(workers.map((worker) => worker.run()));
  return {
    env,
    async run(mocks, body) {
      current = mocks as Mocks;
      return body(taskQueue);
    },
    async teardown() {
      for (const worker of workers) worker.shutdown();
      await running;
      await env.teardown();
    },
  };
}

/** A fresh workflow id per start, so tests never collide on the server's id uniqueness. */
export const workflowId = (prefix: string) => `${prefix}-${randomUUID()}`;

/** What an activity mock saw of one call: the server's clock (skipped time included), attempt and run. */
export interface CallRecord {
  at: number;
  attempt: number;
  runId: string | undefined;
}

/** The current activity call, at the test server's time (which moves with skipped time, unlike Date.now()). */
export async function currentCall(env: TestWorkflowEnvironment): Promise<CallRecord> {
  const { info } = Context.current();
  return { at: await env.currentTimeMs(), attempt: info.attempt, runId: info.workflowExecution?.runId };
}

/** A promise and the function that resolves it: lets a test wait for a mock to be reached instead of sleeping. */
export function signalled<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
