import { api } from '../support/http';
import { fund, newLedger } from '../support/ledger-fixtures';
import { createWorkflow, eventually, readInstance, runInstance, stageHistory } from '../support/orchestration';

/**
 * The runs whose Temporal histories are committed under test/replay/histories and replayed by replay.test.ts. Each
 * covers a distinct path of the instance workflow; `npm run replay:record` runs them against a fresh platform and
 * rewrites the files. Each returns the workflow id (= instance id) of the run to record, once it has ended.
 */
export const scenarios: Record<string, () => Promise<string>> = {
  async 'noop-delay'() {
    const workflowID = await createWorkflow([{ noop: {} }, { delay: { duration: '200ms' } }]);
    return (await runInstance(workflowID, {}, true)).body.data.id;
  },

  async 'wait-event-early'() {
    const workflowID = await createWorkflow([{ delay: { duration: '300ms' } }, { wait_event: { event: 'approved' } }]);
    const id = (await runInstance(workflowID)).body.data.id;
    await api('POST', `/api/orchestration/v2/instances/${id}/events`, { body: { name: 'approved' } });
    await eventually(() => readInstance(id), (i) => i.terminated);
    return id;
  },

  async 'abort-waiting'() {
    const workflowID = await createWorkflow([{ wait_event: { event: 'never' } }, { noop: {} }]);
    const id = (await runInstance(workflowID)).body.data.id;
    await eventually(() => readInstance(id), (i) => i.status.length === 1);
    await api('PUT', `/api/orchestration/v2/instances/${id}/abort`);
    await eventually(() => readInstance(id), (i) => i.terminated);
    return id;
  },

  async 'invalid-stage'() {
    const workflowID = await createWorkflow([{ delay: { duration: '${d}' } }, { noop: {} }]);
    return (await runInstance(workflowID, { d: 'never' }, true)).body.data.id;
  },

  async 'send-cross-ledger'() {
    const [from, to] = [await newLedger('replay'), await newLedger('replay')];
    await fund(from, 'users:1', 500);
    const account = (id: string, ledger: string) => ({ account: { id, ledger } });
    const workflowID = await createWorkflow([{ send: { source: account('users:1', from), destination: account('bank', to), amount: { asset: 'USD/2', amount: 200 } } }]);
    return (await runInstance(workflowID, {}, true)).body.data.id;
  },

  async 'send-retry-until-funded'() {
    const ledger = await newLedger('replay');
    const workflowID = await createWorkflow([
      { send: { source: { account: { id: 'empty', ledger } }, destination: { account: { id: 'dest', ledger } }, amount: { asset: 'USD/2', amount: 100 } } },
    ]);
    const id = (await runInstance(workflowID)).body.data.id;
    await eventually(async () => (await stageHistory(id, 0)).body.data, (e) => Array.isArray(e) && e[0]?.attempt >= 2);
    await fund(ledger, 'empty', 100);
    await eventually(() => readInstance(id), (i) => i.terminated, 60_000);
    return id;
  },
};
