import { api } from '../support/http';
import { pollUntil } from '../support/eventually';
import { sdkClient } from './sdk-client';

/** Every method of Formance's `orchestration.v2` through the official SDK (paths under /api/orchestration/v2). */
const orchestration = sdkClient().orchestration.v2;
const name = () => `contract-${Math.random().toString(36).slice(2, 8)}`;

async function workflowWaitingFor(event: string): Promise<string> {
  const created = await orchestration.createWorkflow({ name: name(), stages: [{ wait_event: { event } }] });
  return created.v2CreateWorkflowResponse!.data.id;
}

/** Run workflow answers 200 in the spec (Formance: 201), so instances are started over raw HTTP. */
async function startInstance(workflowID: string): Promise<string> {
  const res = await api('POST', `/api/orchestration/v2/workflows/${workflowID}/instances`, { body: {} });
  expect(res.status).toBe(200);
  return res.body.data.id;
}

describe('contract: orchestration.v2 through the Formance SDK', () => {
  test('getServerInfo', async () => {
    expect(typeof (await orchestration.getServerInfo()).v2ServerInfo!.version).toBe('string');
  });

  test('createWorkflow, getWorkflow, listWorkflows, deleteWorkflow', async () => {
    const id = await workflowWaitingFor('never');
    expect((await orchestration.getWorkflow({ flowId: id })).v2GetWorkflowResponse!.data.id).toBe(id);
    const listed = await orchestration.listWorkflows({ pageSize: 100 });
    expect(listed.v2ListWorkflowsResponse!.cursor.data.map((w) => w.id)).toContain(id);
    expect((await orchestration.deleteWorkflow({ flowId: id })).statusCode).toBe(204);
  });

  test('runWorkflow: the spec answers 200 where Formance answers 201 (raw HTTP)', async () => {
    const workflowID = await workflowWaitingFor('go');
    const instanceID = await startInstance(workflowID);
    expect(instanceID).toMatch(/\S/);
  });

  test('getInstance, listInstances, sendEvent, getInstanceHistory, getInstanceStageHistory', async () => {
    const workflowID = await workflowWaitingFor('go');
    const instanceID = await startInstance(workflowID);
    const listed = await orchestration.listInstances({ workflowID, pageSize: 10 });
    expect(listed.v2ListRunsResponse!.cursor.data.map((i) => i.id)).toEqual([instanceID]);
    await orchestration.sendEvent({ instanceID, requestBody: { name: 'go' } });
    const done = await pollUntil(
      async () => (await orchestration.getInstance({ instanceID })).v2GetWorkflowInstanceResponse!.data,
      (i) => i.terminated,
    );
    expect(done.error ?? '').toBe('');
    const history = (await orchestration.getInstanceHistory({ instanceID })).v2GetWorkflowInstanceHistoryResponse!.data;
    expect(history[0].name).toBe('RunWaitEvent');
    const stage = (await orchestration.getInstanceStageHistory({ instanceID, number: 0 })).v2GetWorkflowInstanceHistoryStageResponse!.data;
    // A wait_event stage runs no activity: its stage history resolves (the shape is Formance's) and is empty.
    expect(stage).toEqual([]);
  });

  test('cancelEvent stops a waiting instance', async () => {
    const instanceID = await startInstance(await workflowWaitingFor('never'));
    expect((await orchestration.cancelEvent({ instanceID })).statusCode).toBe(204);
    const done = await pollUntil(
      async () => (await orchestration.getInstance({ instanceID })).v2GetWorkflowInstanceResponse!.data,
      (i) => i.terminated,
    );
    expect(done.terminated).toBe(true);
  });

  test('createTrigger, readTrigger, listTriggers, testTrigger, listTriggersOccurrences, deleteTrigger', async () => {
    const workflowID = await workflowWaitingFor('never');
    const triggerName = name();
    const created = await orchestration.createTrigger({
      event: 'SAVED_PAYMENT',
      workflowID,
      name: triggerName,
      filter: 'event.amount > 100',
      vars: { amount: 'event.amount' },
    });
    const id = created.v2CreateTriggerResponse!.data.id;
    expect((await orchestration.readTrigger({ triggerID: id })).v2ReadTriggerResponse!.data.name).toBe(triggerName);
    expect((await orchestration.listTriggers({ name: triggerName })).v2ListTriggersResponse!.cursor.data.map((t) => t.id)).toEqual([id]);
    const tested = await orchestration.testTrigger({ triggerID: id, requestBody: { amount: 250 } });
    expect(tested.v2TestTriggerResponse!.data.filter?.match).toBe(true);
    const occurrences = await orchestration.listTriggersOccurrences({ triggerID: id });
    expect(occurrences.v2ListTriggersOccurrencesResponse!.cursor.data).toEqual([]);
    expect((await orchestration.deleteTrigger({ triggerID: id })).statusCode).toBe(204);
  });
});
