import { api } from '../support/http';
import { eventually } from '../support/orchestration';
import { sdkClient } from './sdk-client';

/** Every method of Formance's `orchestration.v1` through the official SDK (paths under /api/orchestration). */
const orchestration = sdkClient().orchestration.v1;
const name = () => `contract-v1-${Math.random().toString(36).slice(2, 8)}`;

async function workflowWaitingFor(event: string): Promise<string> {
  return (await orchestration.createWorkflow({ name: name(), stages: [{ wait_event: { event } }] })).createWorkflowResponse!.data.id;
}

/** Run workflow answers 200 in the spec (Formance: 201), so instances are started over raw HTTP. */
async function startInstance(workflowID: string): Promise<string> {
  const res = await api('POST', `/api/orchestration/workflows/${workflowID}/instances`, { body: {} });
  expect(res.status).toBe(200);
  return res.body.data.id;
}

describe('contract: orchestration.v1 through the Formance SDK', () => {
  test('getServerInfoOrchestration', async () => {
    expect(typeof (await orchestration.getServerInfoOrchestration()).serverInfo!.version).toBe('string');
  });

  test('createWorkflow, getWorkflow, listWorkflows, deleteWorkflow', async () => {
    const id = await workflowWaitingFor('never');
    expect((await orchestration.getWorkflow({ flowId: id })).getWorkflowResponse!.data.id).toBe(id);
    expect((await orchestration.listWorkflows()).listWorkflowsResponse!.data.map((w) => w.id)).toContain(id);
    expect((await orchestration.deleteWorkflow({ flowId: id })).statusCode).toBe(204);
  });

  test('getInstance, listInstances, sendEvent, getInstanceHistory, getInstanceStageHistory', async () => {
    const workflowID = await workflowWaitingFor('go');
    const instanceID = await startInstance(workflowID);
    expect((await orchestration.listInstances({ workflowID })).listRunsResponse!.data.map((i) => i.id)).toEqual([instanceID]);
    await orchestration.sendEvent({ instanceID, requestBody: { name: 'go' } });
    const done = await eventually(async () => (await orchestration.getInstance({ instanceID })).getWorkflowInstanceResponse!.data, (i) => i.terminated);
    expect(done.error ?? '').toBe('');
    const history = (await orchestration.getInstanceHistory({ instanceID })).getWorkflowInstanceHistoryResponse!.data;
    expect(history[0].name).toBe('RunWaitEvent');
    const stage = (await orchestration.getInstanceStageHistory({ instanceID, number: 0 })).getWorkflowInstanceHistoryStageResponse!.data;
    // A wait_event stage runs no activity: its stage history resolves (the shape is Formance's) and is empty.
    expect(stage).toEqual([]);
  });

  test('cancelEvent stops a waiting instance', async () => {
    const instanceID = await startInstance(await workflowWaitingFor('never'));
    expect((await orchestration.cancelEvent({ instanceID })).statusCode).toBe(204);
    const done = await eventually(async () => (await orchestration.getInstance({ instanceID })).getWorkflowInstanceResponse!.data, (i) => i.terminated);
    expect(done.terminated).toBe(true);
  });

  test('createTrigger, readTrigger, listTriggers, listTriggersOccurrences, deleteTrigger', async () => {
    const workflowID = await workflowWaitingFor('never');
    const triggerName = name();
    const id = (await orchestration.createTrigger({ event: 'SAVED_PAYMENT', workflowID, name: triggerName })).createTriggerResponse!.data.id;
    expect((await orchestration.readTrigger({ triggerID: id })).readTriggerResponse!.data.name).toBe(triggerName);
    expect((await orchestration.listTriggers({ name: triggerName })).listTriggersResponse!.data.map((t) => t.id)).toEqual([id]);
    expect((await orchestration.listTriggersOccurrences({ triggerID: id })).listTriggersOccurrencesResponse!.data).toEqual([]);
    expect((await orchestration.deleteTrigger({ triggerID: id })).statusCode).toBe(204);
  });
});
