import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { dataConverter } from '../../lib/temporal';
import type { RuleRunResult } from '../../workflows/reconciliation/rule-run';
import { startTimeSkipping } from './support';

/**
 * The scheduled run of a reconciliation rule (`reconciliationRuleRun`) against a Temporal test environment with a
 * mocked activity: what it passes the evaluation, and that a retried evaluation keeps its id and instant (the
 * idempotency the activity relies on), on Temporal's time-skipping test server (retry backoffs are skipped).
 */
type Call = { ruleID: string; evaluationID: string; at: string };

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let mock: (input: Call) => Promise<RuleRunResult>;
let worker: Worker;
let running: Promise<void>;
const taskQueue = `rule-run-${randomUUID()}`;

beforeAll(async () => {
  env = await startTimeSkipping();
  bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows/reconciliation/rule-run'),
    payloadConverterPath: dataConverter.payloadConverterPath,
    logger: silent,
  });
  worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: bundle,
    dataConverter,
    activities: { evaluateReconciliationRule: (input: Call) => mock(input) },
  });
  running = worker.run();
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
});

const run = (ruleID: string) =>
  env.client.workflow.execute('reconciliationRuleRun', {
    taskQueue,
    workflowId: `reconciliation-rule-${ruleID}-${randomUUID()}`,
    args: [{ ruleID }],
  }) as Promise<RuleRunResult>;

describe('reconciliationRuleRun', () => {
  it("evaluates the rule once, at the run's instant, and returns the evaluation", async () => {
    const calls: Call[] = [];
    mock = async (input) => {
      calls.push(input);
      return { evaluationID: input.evaluationID, result: 'FAIL' };
    };
    const before = Date.now();
    const result = await run('rule-1');
    expect(calls).toHaveLength(1);
    expect(calls[0].ruleID).toBe('rule-1');
    expect(calls[0].evaluationID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Date(calls[0].at).getTime()).toBeGreaterThanOrEqual(before - 5_000);
    expect(result).toEqual({ evaluationID: calls[0].evaluationID, result: 'FAIL' });
  });

  it('retries a failed evaluation with the same evaluation id and instant, so only one is ever recorded', async () => {
    const calls: Call[] = [];
    mock = async (input) => {
      calls.push(input);
      if (calls.length < 3) throw new Error('database unreachable');
      return { evaluationID: input.evaluationID, result: 'PASS' };
    };
    const result = await run('rule-2');
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.evaluationID)).size).toBe(1);
    expect(new Set(calls.map((c) => c.at)).size).toBe(1);
    expect(result.result).toBe('PASS');
  }, 60_000);

  it("gives up after five attempts: the run fails, the schedule's next tick starts afresh", async () => {
    let attempts = 0;
    mock = async () => {
      attempts++;
      throw ApplicationFailure.retryable('still unreachable');
    };
    await expect(run('rule-3')).rejects.toThrow(/Workflow execution failed/);
    expect(attempts).toBe(5);
  }, 120_000);

  it('passes a skipped run through (a rule disabled or deleted since the schedule fired)', async () => {
    mock = async () => ({ skipped: 'disabled' });
    expect(await run('rule-4')).toEqual({ skipped: 'disabled' });
  });
});

const noop = () => undefined;
const silent = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };
