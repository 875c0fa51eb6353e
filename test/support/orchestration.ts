import { api } from './http';

/** Creates a workflow through the API and returns its id. */
export async function createWorkflow(stages: unknown[], name = `wf-${Math.random().toString(36).slice(2, 8)}`): Promise<string> {
  const res = await api('POST', '/api/orchestration/v2/workflows', { body: { name, stages } });
  if (res.status !== 201) throw new Error(`workflow creation failed: ${res.status} ${res.text}`);
  return res.body.data.id;
}

/** Starts an instance (op 12) and returns the response. */
export async function runInstance(workflowID: string, variables: Record<string, string> = {}, wait = false) {
  return api('POST', `/api/orchestration/v2/workflows/${workflowID}/instances${wait ? '?wait=true' : ''}`, { body: variables });
}

export const readInstance = async (id: string) => (await api('GET', `/api/orchestration/v2/instances/${id}`)).body.data;
export const instanceHistory = (id: string) => api('GET', `/api/orchestration/v2/instances/${id}/history`);
export const stageHistory = (id: string, n: number | string) => api('GET', `/api/orchestration/v2/instances/${id}/stages/${n}/history`);
