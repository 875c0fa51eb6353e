import { createDb, type Db } from '../../../db/knex';
import { recordStageEnded, recordStageStarted } from '../../../areas/orchestration/read-model';
import { createWorkflow, runInstance } from '../../support/orchestration';

/** The instance's orchestration events, in outbox order, payloads parsed. */
async function eventsOf(db: Db, instanceID: string) {
  const rows = await db('events_outbox').where({ app: 'orchestration' }).whereRaw(`payload::jsonb->>'instanceID' = ?`, [instanceID]).orderBy('seq');
  return rows.map((r: { type: string; payload: string }) => ({ type: r.type, payload: JSON.parse(r.payload) }));
}

describe('orchestration events in the outbox', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 2 });
  });
  afterAll(() => db.destroy());

  it('a successful run emits STARTED_WORKFLOW, then per stage STARTED/SUCCEEDED_WORKFLOW_STAGE, then SUCCEEDED_WORKFLOW', async () => {
    const workflowID = await createWorkflow([{ noop: {} }, { noop: {} }]);
    const { body } = await runInstance(workflowID, {}, true);
    const id = body.data.id;
    expect(body.data.terminated).toBe(true);
    expect(await eventsOf(db, id)).toEqual([
      { type: 'STARTED_WORKFLOW', payload: { id: workflowID, instanceID: id } },
      { type: 'STARTED_WORKFLOW_STAGE', payload: { id: workflowID, instanceID: id, number: 0 } },
      { type: 'SUCCEEDED_WORKFLOW_STAGE', payload: { id: workflowID, instanceID: id, number: 0 } },
      { type: 'STARTED_WORKFLOW_STAGE', payload: { id: workflowID, instanceID: id, number: 1 } },
      { type: 'SUCCEEDED_WORKFLOW_STAGE', payload: { id: workflowID, instanceID: id, number: 1 } },
      { type: 'SUCCEEDED_WORKFLOW', payload: { id: workflowID, instanceID: id } },
    ]);
  });

  it('a failing stage emits FAILED_WORKFLOW_STAGE and FAILED_WORKFLOW with the error, and no later stage starts', async () => {
    const workflowID = await createWorkflow([
      {
        send: {
          source: { account: { id: 'world', ledger: 'no-such-ledger-${n}' } },
          destination: { account: { id: 'a', ledger: 'no-such-ledger-${n}' } },
          amount: { asset: 'USD', amount: 1 },
        },
      },
      { noop: {} },
    ]);
    const { body } = await runInstance(workflowID, { n: Math.random().toString(36).slice(2) }, true);
    const id = body.data.id;
    const error = body.data.error;
    expect(error).toMatch(/ledger/);
    expect(await eventsOf(db, id)).toEqual([
      { type: 'STARTED_WORKFLOW', payload: { id: workflowID, instanceID: id } },
      { type: 'STARTED_WORKFLOW_STAGE', payload: { id: workflowID, instanceID: id, number: 0 } },
      { type: 'FAILED_WORKFLOW_STAGE', payload: { id: workflowID, instanceID: id, number: 0, error } },
      { type: 'FAILED_WORKFLOW', payload: { id: workflowID, instanceID: id, error } },
    ]);
  });

  it('read-model writes retried by Temporal change nothing and emit nothing twice', async () => {
    const workflowID = await createWorkflow([{ noop: {} }]);
    const { body } = await runInstance(workflowID, {}, true);
    const id = body.data.id;
    const before = await eventsOf(db, id);
    const row = await db('orchestration_stage_statuses').where({ instance_id: id, stage: 0 }).first();
    const mark = { instanceID: id, workflowID, number: 0, at: new Date(Date.now() + 60_000) };
    await recordStageStarted(db, mark);
    await recordStageEnded(db, { ...mark, error: 'late retry', endsInstance: true });
    expect(await eventsOf(db, id)).toEqual(before);
    expect(await db('orchestration_stage_statuses').where({ instance_id: id, stage: 0 }).first()).toEqual(row);
    const instance = await db('orchestration_instances').where({ id }).first();
    expect(instance.terminated_at).toEqual(new Date(body.data.terminatedAt));
    expect(instance.error).toBeNull();
  });

  it('a stage end whose instance end was lost still ends the instance, once', async () => {
    const workflowID = await createWorkflow([{ noop: {} }]);
    const { body } = await runInstance(workflowID, {}, true);
    const id = body.data.id;
    // As if the instance end had not been written: the retried write must end it without re-ending the stage.
    await db('orchestration_instances').where({ id }).update({ terminated: false, terminated_at: null });
    await db('events_outbox')
      .where({ app: 'orchestration', type: 'SUCCEEDED_WORKFLOW' })
      .whereRaw(`payload::jsonb->>'instanceID' = ?`, [id])
      .delete();
    const at = new Date();
    await recordStageEnded(db, { instanceID: id, workflowID, number: 0, at, endsInstance: true });
    await recordStageEnded(db, { instanceID: id, workflowID, number: 0, at, endsInstance: true });
    const types = (await eventsOf(db, id)).map((e) => e.type);
    expect(types).toEqual(['STARTED_WORKFLOW', 'STARTED_WORKFLOW_STAGE', 'SUCCEEDED_WORKFLOW_STAGE', 'SUCCEEDED_WORKFLOW']);
    // The instance ends when its last stage ended (the end stored first), not at the retried write's time.
    const stage = await db('orchestration_stage_statuses').where({ instance_id: id, stage: 0 }).first();
    expect(stage.terminated_at.getTime()).toBeLessThanOrEqual(at.getTime());
    expect(await db('orchestration_instances').where({ id }).first()).toMatchObject({ terminated: true, terminated_at: stage.terminated_at });
  });
});
