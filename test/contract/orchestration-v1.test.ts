import { api } from '../support/http';
import { pollUntil } from '../support/eventually';
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
    const done = await pollUntil(
      async () => (await orchestration.getInstance({ instanceID })).getWorkflowInstanceResponse!.data,
      (i) => i.terminated,
    );
    expect(done.error ?? '').toBe('');
    const history = (await orchestration.getInstanceHistory({ instanceID })).getWorkflowInstanceHistoryResponse!.data;
    expect(history[0].name).toBe('RunWaitEvent');
    const stage = (await orchestration.getInstanceStageHistory({ instanceID, number: 0 })).getWorkflowInstanceHistoryStageResponse!.data;
    // A wait_event stage runs no activity: its stage history resolves (the shape is Formance's) and is empty.
    expect(stage).toEqual([]);
  });

  test('getInstanceStageHistory: a CreateTransaction step outputs one transaction (v1 shape)', async () => {
    const ledger = `contract-v1-${Math.random().toString(36).slice(2, 8)}`;
    expect((await api('POST', `/api/ledger/v2/${ledger}`)).status).toBe(204);
    const send = {
      source: { account: { id: 'world', ledger } },
      destination: { account: { id: 'users:1', ledger } },
      amount: { asset: 'USD/2', amount: 42 },
    };
    const workflowID = (await orchestration.createWorkflow({ name: name(), stages: [{ send }] })).createWorkflowResponse!.data.id;
    const instanceID = await startInstance(workflowID);
    await pollUntil(
      async () => (await orchestration.getInstance({ instanceID })).getWorkflowInstanceResponse!.data,
      (i) => i.terminated,
    );
    const [step] = (await orchestration.getInstanceStageHistory({ instanceID, number: 0 })).getWorkflowInstanceHistoryStageResponse!.data;
    const transaction = step.output!.createTransaction!.data;
    expect(Array.isArray(transaction)).toBe(false);
    expect(transaction).toMatchObject({ reverted: false, postings: [{ source: 'world', destination: 'users:1', amount: 42n, asset: 'USD/2' }] });
    expect(typeof transaction.id).toBe('bigint');
    // v2 keeps the list Formance v2 answers.
    const v2 = await api('GET', `/api/orchestration/v2/instances/${instanceID}/stages/0/history`);
    expect(v2.body.data[0].output.CreateTransaction.data).toEqual([expect.objectContaining({ txid: Number(transaction.id) })]);
  });

  test('cancelEvent stops a waiting instance', async () => {
    const instanceID = await startInstance(await workflowWaitingFor('never'));
    expect((await orchestration.cancelEvent({ instanceID })).statusCode).toBe(204);
    const done = await pollUntil(
      async () => (await orchestration.getInstance({ instanceID })).getWorkflowInstanceResponse!.data,
      (i) => i.terminated,
    );
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
