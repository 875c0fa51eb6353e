import { randomUUID } from 'node:crypto';
import { createTemporalClient } from '../../../lib/temporal';
import { createOrchestrationActivities } from '../../../activities/orchestration';
import type { StepResult } from '../../../lib/orchestration/steps';
import { createDb, type Db } from '../../../db/knex';
import { api } from '../../support/http';
import { createWorkflow, instanceHistory, readInstance, runInstance, stageHistory } from '../../support/orchestration';

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);

async function fundedLedger(amount: number): Promise<string> {
  const ledger = `steps-${randomUUID().slice(0, 8)}`;
  await api('POST', `/api/ledger/v2/${ledger}`);
  await api('POST', `/api/ledger/v2/${ledger}/transactions`, { body: { postings: [{ source: 'world', destination: 'src', amount, asset: 'USD' }] } });
  return ledger;
}

const send = (ledger: string, amount: number) => ({
  send: { source: { account: { id: 'src', ledger } }, destination: { account: { id: 'dst', ledger } }, amount: { asset: 'USD', amount } },
});

/**
 * Runs started since `execution: 'local-first'`: stage 0 starts with the instance row, a step's first attempt is a
 * local activity, and a stage's last step records the stage's end.
 */
describe('orchestration steps run locally first', () => {
  let db: Db;
  let temporal: Awaited<ReturnType<typeof createTemporalClient>>;
  beforeAll(async () => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 2 });
    temporal = await createTemporalClient({ address: process.env.TEST_TEMPORAL_ADDRESS!, namespace: 'default' });
  });
  afterAll(async () => {
    await temporal.connection.close();
    await db.destroy();
  });

  it('a one-step stage is one local activity: no activity task, and ops 13 and 14 read it from the marker', async () => {
    const ledger = await fundedLedger(100);
    const workflowID = await createWorkflow([send(ledger, 30)]);
    const { body } = await runInstance(workflowID, {}, true);
    const id = body.data.id;
    expect(body.data).toMatchObject({ terminated: true, status: [{ stage: 0, startedAt: iso, terminatedAt: iso }] });
    expect(body.data.error).toBeUndefined();

    const { events } = await temporal.client.workflow.getHandle(id).fetchHistory();
    const kinds = (events ?? []).map((e) => Object.keys(e).find((k) => k.endsWith('EventAttributes')));
    expect(kinds).not.toContain('activityTaskScheduledEventAttributes');
    // One marker: the step itself; its stage's start came with the instance row and its end with the step.
    expect(kinds.filter((k) => k === 'markerRecordedEventAttributes')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'workflowTaskCompletedEventAttributes')).toHaveLength(1);

    const stages = (await instanceHistory(id)).body.data;
    expect(stages).toEqual([
      {
        name: 'RunSend',
        input: {
          source: { account: { id: 'src', ledger } },
          destination: { account: { id: 'dst', ledger } },
          amount: { asset: 'USD', amount: 30 },
          metadata: {},
        },
        terminated: true,
        startedAt: body.data.status[0].startedAt,
        terminatedAt: body.data.status[0].terminatedAt,
      },
    ]);
    const steps = (await stageHistory(id, 0)).body.data;
    expect(steps).toEqual([
      {
        name: 'CreateTransaction',
        input: { CreateTransaction: { ledger, data: { postings: [{ source: 'src', destination: 'dst', amount: 30, asset: 'USD' }], metadata: {} } } },
        output: {
          CreateTransaction: {
            data: [
              expect.objectContaining({ txid: expect.any(Number), postings: [{ source: 'src', destination: 'dst', amount: 30, asset: 'USD' }] }),
            ],
          },
        },
        terminated: true,
        startedAt: iso,
        terminatedAt: iso,
        attempt: 1,
      },
    ]);
  });

  it('stage and step times are in causal order: each stage within itself and after the one before, each step within its stage', async () => {
    const ledger = await fundedLedger(100);
    const other = await fundedLedger(0);
    const cross = {
      send: {
        source: { account: { id: 'src', ledger } },
        destination: { account: { id: 'dst', ledger: other } },
        amount: { asset: 'USD', amount: 5 },
      },
    };
    const workflowID = await createWorkflow([send(ledger, 10), cross, { noop: {} }, send(ledger, 10), { delay: { duration: '10ms' } }]);
    const { body } = await runInstance(workflowID, {}, true);
    expect(body.data).toMatchObject({ terminated: true });
    expect(body.data.error).toBeUndefined();
    const history = await instanceHistory(body.data.id).then((r) => r.body.data as Array<{ startedAt: string; terminatedAt: string }>);
    const t = (iso: string) => Date.parse(iso);
    // The read model and op 13 give the same times.
    expect(history.map((s) => [s.startedAt, s.terminatedAt])).toEqual(
      body.data.status.map((s: { startedAt: string; terminatedAt: string }) => [s.startedAt, s.terminatedAt]),
    );
    expect(body.data.terminatedAt).toBe(history[history.length - 1].terminatedAt);
    history.forEach((stage, n) => {
      expect(t(stage.startedAt)).toBeLessThanOrEqual(t(stage.terminatedAt));
      if (n > 0) expect(t(history[n - 1].terminatedAt)).toBeLessThanOrEqual(t(stage.startedAt));
    });
    for (const n of [0, 1, 3]) {
      const steps = (await stageHistory(body.data.id, n)).body.data as Array<{ startedAt: string; terminatedAt: string }>;
      expect(steps.length).toBeGreaterThan(0);
      let previous = t(history[n].startedAt);
      for (const step of steps) {
        expect(previous).toBeLessThanOrEqual(t(step.startedAt));
        expect(t(step.startedAt)).toBeLessThanOrEqual(t(step.terminatedAt));
        expect(t(step.terminatedAt)).toBeLessThanOrEqual(t(history[n].terminatedAt));
        previous = t(step.terminatedAt);
      }
      // A stage ended by its last step ends when that step did.
      expect(steps[steps.length - 1].terminatedAt).toBe(history[n].terminatedAt);
    }
  });

  it('a step run twice with the same options (its local attempt committed, then its regular one ran) posts once and ends its stage once', async () => {
    const ledger = await fundedLedger(100);
    const workflowID = await createWorkflow([{ noop: {} }]);
    // A real instance row with stage 0 open, as the API leaves it before the workflow runs.
    const instanceID = (await runInstance(workflowID, {}, true)).body.data.id;
    await db('orchestration_stage_statuses').where({ instance_id: instanceID }).update({ terminated_at: null, error: null });
    await db('orchestration_instances').where({ id: instanceID }).update({ terminated: false, terminated_at: null });
    const before = await db('events_outbox')
      .where({ app: 'orchestration' })
      .whereRaw(`payload::jsonb->>'instanceID' = ?`, [instanceID])
      .count<{ count: string }[]>('* as count');

    const activities = createOrchestrationActivities({ db, temporal: { client: temporal.client, taskQueue: process.env.TEST_TASK_QUEUE! } });
    const step = activities.CreateTransaction as unknown as (
      input: unknown,
      options: unknown,
    ) => Promise<StepResult<{ data: Array<{ txid: bigint }> }>>;
    const input = { ledger, data: { postings: [{ source: 'src', destination: 'dst', amount: 40, asset: 'USD' }], metadata: {} } };
    const options = {
      id: 's0-1-CreateTransaction',
      key: `${instanceID}-s0-1-CreateTransaction`,
      ends: { instanceID, workflowID, number: 0, endsInstance: true },
    };
    const first = await step(input, options);
    const second = await step(input, options);

    expect(second.output.data[0].txid).toBe(first.output.data[0].txid);
    expect(first).toMatchObject({ id: 's0-1-CreateTransaction', input, ended: { number: 0, at: iso } });
    // The repeat reports the end the first run stored, not its own clock.
    expect(second.ended).toEqual(first.ended);
    const dst = (await api('GET', `/api/ledger/v2/${ledger}/accounts/dst?expand=volumes`)).body.data;
    expect(dst.volumes.USD.input).toBe(40);
    const after = await db('events_outbox')
      .where({ app: 'orchestration' })
      .whereRaw(`payload::jsonb->>'instanceID' = ?`, [instanceID])
      .orderBy('seq');
    // The first run ended the stage and the instance (two events); the second found both ended and emitted nothing.
    expect(after.length - Number(before[0].count)).toBe(2);
    expect(after.slice(-2).map((e: { type: string }) => e.type)).toEqual(['SUCCEEDED_WORKFLOW_STAGE', 'SUCCEEDED_WORKFLOW']);
    expect(await readInstance(instanceID)).toMatchObject({ terminated: true, status: [{ stage: 0, terminatedAt: first.ended!.at }] });
  });

  it('a stage its last step ended just before an abort stays ended without error: the canceled end reported after it is the stored one', async () => {
    const ledger = await fundedLedger(100);
    const workflowID = await createWorkflow([{ noop: {} }]);
    const instanceID = (await runInstance(workflowID, {}, true)).body.data.id;
    await db('orchestration_stage_statuses').where({ instance_id: instanceID }).update({ terminated_at: null, error: null });
    await db('orchestration_instances').where({ id: instanceID }).update({ terminated: false, terminated_at: null });
    const activities = createOrchestrationActivities({ db, temporal: { client: temporal.client, taskQueue: process.env.TEST_TASK_QUEUE! } });
    const step = activities.CreateTransaction as unknown as (input: unknown, options: unknown) => Promise<StepResult<unknown>>;
    const input = { ledger, data: { postings: [{ source: 'src', destination: 'dst', amount: 40, asset: 'USD' }], metadata: {} } };
    // The step commits and ends stage 0 (not the instance: as if a stage followed), then the workflow, cancelled, ends it as canceled.
    const done = await step(input, {
      id: 's0-1-CreateTransaction',
      key: `${instanceID}-s0-1-CreateTransaction`,
      instanceID,
      ends: { instanceID, workflowID, number: 0 },
    });
    const reported = await activities.orchestrationStageEnded({
      instanceID,
      workflowID,
      number: 0,
      at: new Date().toISOString(),
      error: 'canceled',
      endsInstance: true,
    });
    expect(reported).toEqual({ instanceID, workflowID, number: 0, at: done.ended!.at, endsInstance: true });
    expect(await readInstance(instanceID)).toMatchObject({
      terminated: true,
      error: 'canceled',
      terminatedAt: done.ended!.at,
      status: [{ stage: 0, terminatedAt: done.ended!.at }],
    });
    expect((await readInstance(instanceID)).status[0].error).toBeUndefined();
  });
});
