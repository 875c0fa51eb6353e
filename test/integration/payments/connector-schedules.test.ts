import type { Client, Connection } from '@temporalio/client';
import { accountId } from '../../../areas/payments/ids';
import { api } from '../../support/http';
import { isDefined, pollUntil } from '../../support/eventually';
import { installSimulated, paymentsOf, simulatedDirectory, suffix, writeJson } from '../../support/payments';
import { runsTakenAfter, temporalClient } from '../../support/temporal';

const payment = (reference: string) => ({
  reference,
  type: 'PAY-IN',
  status: 'SUCCEEDED',
  amount: 100,
  asset: 'EUR/2',
  createdAt: '2024-03-01T10:00:00Z',
  destinationAccountReference: 'main',
});
const connectors = '/api/payments/v3/connectors';
const references = async (connectorID: string) => (await paymentsOf(connectorID)).map((p) => p.reference).sort();
const hasPayment = (connectorID: string, reference: string) =>
  pollUntil(async () => ((await references(connectorID)).includes(reference) ? true : undefined), isDefined, { timeoutMs: 30_000, what: reference });

async function settledTask(taskID: string): Promise<any> {
  return pollUntil(
    async () => {
      const res = await api('GET', `/api/payments/v3/tasks/${encodeURIComponent(taskID)}`);
      expect(res.status).toBe(200);
      return res.body.data.status !== 'PROCESSING' ? res.body.data : undefined;
    },
    isDefined,
    { timeoutMs: 30_000, what: `task ${taskID}` },
  );
}

async function schedulesOf(connectorID: string): Promise<any[]> {
  const res = await api('GET', `${connectors}/${connectorID}/schedules`);
  expect(res.status).toBe(200);
  return res.body.cursor.data;
}

describe('connector schedules and tasks (payments v3)', () => {
  let client: Client;
  let connection: Connection;
  beforeAll(async () => ({ client, connection } = await temporalClient()));
  afterAll(async () => connection.close());

  /**
   * Waits for the end of every run a paused schedule took: its description lists them once it reads as paused, and
   * with overlap SKIP the only one that can still be going is the last.
   */
  async function runsEnded(scheduleId: string): Promise<void> {
    const { info } = await client.schedule.getHandle(scheduleId).describe();
    for (const { action } of info.recentActions) {
      await client.workflow
        .getHandle(action.workflow.workflowId, action.workflow.firstExecutionRunId)
        .result()
        .catch(() => undefined);
    }
  }

  it("install accepts Formance's `provider` and `pageSize`; the config reads back with the SDK's provider type", async () => {
    const dir = simulatedDirectory();
    const simulated = await api('POST', `${connectors}/install/simulated`, {
      body: { name: `f-${suffix()}`, directory: dir, pollingPeriod: '30m', provider: 'Dummypay', pageSize: 25 },
    });
    expect(simulated.status).toBe(202);
    const config = (await api('GET', `${connectors}/${simulated.body.data}/config`)).body.data;
    expect(config).toEqual({
      name: expect.any(String),
      directory: expect.stringContaining(dir.split('/').pop() as string),
      pollingPeriod: '30m',
      provider: 'Dummypay',
    });
    const generic = await api('POST', `${connectors}/install/generic`, {
      body: { name: `g-${suffix()}`, endpoint: 'http://127.0.0.1:9', apiKey: 'k', provider: 'Generic', pageSize: 100 },
    });
    expect(generic.status).toBe(202);
    expect((await api('GET', `${connectors}/${generic.body.data}/config`)).body.data).toMatchObject({
      provider: 'Generic',
      apiKey: '********',
      pollingPeriod: '2m',
    });
    expect(
      (await api('POST', `${connectors}/install/generic`, { body: { name: `g-${suffix()}`, endpoint: 'http://127.0.0.1:9', pageSize: 0 } })).status,
    ).toBe(400);

    const listed = (await api('GET', `${connectors}?pageSize=1000`)).body.cursor.data.find((c: any) => c.id === simulated.body.data);
    expect(listed).toMatchObject({
      reference: expect.stringMatching(/^[0-9a-f-]{36}$/),
      scheduledForDeletion: false,
      config: { provider: 'Dummypay', pollingPeriod: '30m' },
      capabilities: expect.arrayContaining(['FETCH_PAYMENTS']),
    });
    expect(Buffer.from(simulated.body.data, 'base64url').toString()).toContain(listed.reference);
    // Formance's `query` filter of the v3 lists is accepted and ignored.
    const filter = encodeURIComponent('{"$match":{"name":"x"}}');
    expect((await api('GET', `${connectors}?pageSize=1000&query=${filter}`)).body.cursor.data.map((c: any) => c.id)).toContain(simulated.body.data);
    expect((await api('GET', `${connectors}/${simulated.body.data}/schedules?query=${filter}`)).body.cursor.data).toHaveLength(5);
    for (const id of [simulated.body.data, generic.body.data]) expect((await api('DELETE', `${connectors}/${id}`)).status).toBe(202);
  });

  it('lists one schedule per kind with the polling period, read from Temporal, and the runs each one started', async () => {
    const connectorID = await installSimulated(
      simulatedDirectory({ 'accounts.json': [{ reference: 'main' }], 'payments.json': [payment('p1')] }),
      '1s',
    );
    const schedules = await schedulesOf(connectorID);
    expect(schedules.map((s) => s.kind).sort()).toEqual(['accounts', 'balances', 'conversions', 'orders', 'payments']);
    for (const s of schedules)
      expect(s).toMatchObject({
        id: expect.stringMatching(new RegExp(`^connector-simulated-sim-[0-9a-f-]+-${s.kind}$`)),
        connectorID,
        paused: false,
      });
    const payments = schedules.find((s) => s.kind === 'payments');
    expect((await api('GET', `${connectors}/${connectorID}/schedules/${payments.id}`)).body.data).toEqual(
      expect.objectContaining({ id: payments.id, createdAt: payments.createdAt }),
    );
    const paged = await api('GET', `${connectors}/${connectorID}/schedules?pageSize=3`);
    expect(paged.body.cursor).toMatchObject({ pageSize: 3, hasMore: true });
    const rest = await api('GET', `${connectors}/${connectorID}/schedules?cursor=${paged.body.cursor.next}`);
    expect([...paged.body.cursor.data, ...rest.body.cursor.data].map((s: any) => s.id).sort()).toEqual(schedules.map((s) => s.id).sort());

    const instances = await pollUntil(
      async () => {
        const list = (await api('GET', `${connectors}/${connectorID}/schedules/${payments.id}/instances?pageSize=2`)).body.cursor;
        return list.hasMore && list.data.some((i: any) => i.terminated) ? list : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'three runs of the payments schedule' },
    );
    for (const instance of instances.data) {
      expect(instance).toMatchObject({ id: expect.stringMatching(new RegExp(`^${payments.id}-`)), scheduleID: payments.id, connectorID });
    }
    expect(instances.data[0].createdAt >= instances.data[1].createdAt).toBe(true);
    expect(instances.data.find((i: any) => i.terminated)).toMatchObject({ terminatedAt: expect.any(String), updatedAt: expect.any(String) });
    const next = (await api('GET', `${connectors}/${connectorID}/schedules/${payments.id}/instances?cursor=${instances.next}`)).body.cursor;
    expect(next.data.length).toBeGreaterThan(0);
    expect(next.data.map((i: any) => i.id)).not.toContain(instances.data[0].id);
    expect((await api('DELETE', `${connectors}/${connectorID}`)).status).toBe(202);
  });

  it('a failed run is listed with its error (a malformed provider file), and the next runs try again', async () => {
    const connectorID = await installSimulated(simulatedDirectory({ 'payments.json': [{ reference: 'broken' }] }), '1s');
    const payments = (await schedulesOf(connectorID)).find((s) => s.kind === 'payments');
    const failed = await pollUntil(
      async () => {
        const list = (await api('GET', `${connectors}/${connectorID}/schedules/${payments.id}/instances`)).body.cursor.data;
        return list.filter((i: any) => i.error).length >= 2 ? list.filter((i: any) => i.error) : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'two failed runs' },
    );
    expect(failed[0]).toMatchObject({ terminated: true, error: expect.stringMatching(/payments\.json\[0\]: "createdAt"/) });
    expect((await api('DELETE', `${connectors}/${connectorID}`)).status).toBe(202);
  });

  it('a schedule paused in Temporal stops fetching (and reads as paused); unpaused, it fetches again', async () => {
    const dir = simulatedDirectory({ 'accounts.json': [{ reference: 'main' }], 'payments.json': [payment('p1')] });
    const connectorID = await installSimulated(dir, '1s');
    await hasPayment(connectorID, 'p1');
    const payments = (await schedulesOf(connectorID)).find((s) => s.kind === 'payments');
    await client.schedule.getHandle(payments.id).pause('maintenance');
    const read = (await api('GET', `${connectors}/${connectorID}/schedules/${payments.id}`)).body.data;
    expect(read).toMatchObject({ paused: true, pausedReason: 'maintenance', pausedAt: expect.any(String) });
    // A run started just before the pause may still be going (and would read the file written below).
    await runsEnded(payments.id);
    const written = new Date();
    writeJson(dir, 'payments.json', [payment('p1'), payment('p2')]);
    // A paused schedule runs nothing, checked once two ticks have passed: the accounts schedule, on the same interval
    // and unpaused, has taken two runs since (and they ended), at instants where the payments one would have run too.
    const accounts = (await schedulesOf(connectorID)).find((s) => s.kind === 'accounts');
    expect(await runsTakenAfter(client, accounts.id, written, 2)).toEqual(['COMPLETED', 'COMPLETED']);
    const { info } = await client.schedule.getHandle(payments.id).describe();
    expect(info.recentActions.filter((a) => a.takenAt > written)).toEqual([]);
    expect(await references(connectorID)).toEqual(['p1']);
    await client.schedule.getHandle(payments.id).unpause();
    await hasPayment(connectorID, 'p2');
    expect((await api('DELETE', `${connectors}/${connectorID}`)).status).toBe(202);
  });

  it('reset recreates the schedules (unpaused) and fetches everything again, as a task that reaches SUCCEEDED', async () => {
    const dir = simulatedDirectory({ 'accounts.json': [{ reference: 'main' }], 'payments.json': [payment('p1')] });
    const connectorID = await installSimulated(dir, '1s');
    await hasPayment(connectorID, 'p1');
    const schedules = await schedulesOf(connectorID);
    for (const s of schedules) await client.schedule.getHandle(s.id).pause('frozen');
    // No run started before the pause may still be going: p2 can then only come from the reset's own fetch.
    for (const s of schedules) await runsEnded(s.id);
    writeJson(dir, 'payments.json', [payment('p1'), payment('p2')]);
    const reset = await api('POST', `${connectors}/${connectorID}/reset`);
    expect(reset.status).toBe(202);
    expect(reset.body.data).toBe(schedules[0].id.replace(/-[a-z]+$/, '-reset'));
    expect(await settledTask(reset.body.data)).toMatchObject({ id: reset.body.data, status: 'SUCCEEDED', connectorID });
    expect(await references(connectorID)).toEqual(['p1', 'p2']);
    expect((await schedulesOf(connectorID)).map((s) => s.paused)).toEqual([false, false, false, false, false]);
    expect((await api('DELETE', `${connectors}/${connectorID}`)).status).toBe(202);
  });

  it("a config update sets the schedules' interval; the name, another plugin's field and a missing required field are 400", async () => {
    const dir = simulatedDirectory();
    const connectorID = await installSimulated(dir, '1s');
    const config = (await api('GET', `${connectors}/${connectorID}/config`)).body.data;
    const patch = (body: object) => api('PATCH', `${connectors}/${connectorID}/config`, { body });
    expect((await patch({ ...config, pollingPeriod: '45s', pageSize: 25 })).status).toBe(204);
    expect((await api('GET', `${connectors}/${connectorID}/config`)).body.data.pollingPeriod).toBe('45s');
    for (const s of await schedulesOf(connectorID)) {
      expect((await client.schedule.getHandle(s.id).describe()).spec.intervals?.map((i) => i.every)).toEqual([45_000]);
    }
    for (const [body, message] of [
      [{ ...config, name: 'renamed' }, /body.name/],
      [{ ...config, endpoint: 'http://127.0.0.1:9' }, /body.endpoint/],
      [{ name: config.name, pollingPeriod: '5s' }, /body.directory/],
      [{ ...config, pollingPeriod: '1 week' }, /pollingPeriod/],
    ] as const) {
      const res = await patch(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errorCode: 'VALIDATION', errorMessage: expect.stringMatching(message) });
    }
    expect((await api('GET', `${connectors}/${connectorID}/config`)).body.data.pollingPeriod).toBe('45s');
    expect((await api('DELETE', `${connectors}/${connectorID}`)).status).toBe(202);
  });

  it("a deleted connector's schedules are gone: listed empty, read 404, instances 404, reset 404", async () => {
    const connectorID = await installSimulated(simulatedDirectory(), '1s');
    const [schedule] = await schedulesOf(connectorID);
    const other = await installSimulated(simulatedDirectory(), '1s');
    expect((await api('GET', `${connectors}/${other}/schedules/${schedule.id}`)).status).toBe(404);
    const uninstall = (await api('DELETE', `${connectors}/${connectorID}`)).body.data.taskID;
    expect(await settledTask(uninstall)).toMatchObject({ status: 'SUCCEEDED' });
    expect(await schedulesOf(connectorID)).toEqual([]);
    for (const path of [`/schedules/${schedule.id}`, `/schedules/${schedule.id}/instances`]) {
      const res = await api('GET', `${connectors}/${connectorID}${path}`);
      expect(res.status).toBe(404);
      expect(res.body.errorMessage).toMatch(/deleted with its connector/);
    }
    expect((await api('POST', `${connectors}/${connectorID}/reset`)).status).toBe(404);
    expect((await api('PATCH', `${connectors}/${connectorID}/config`, { body: { name: 'x', directory: 'y' } })).status).toBe(404);
    expect((await api('GET', `${connectors}/unknown/schedules`)).status).toBe(404);
    // Uninstalling again is accepted and runs the task again.
    const again = await api('DELETE', `${connectors}/${connectorID}`);
    expect(again.status).toBe(202);
    expect(await settledTask(again.body.data.taskID)).toMatchObject({ status: 'SUCCEEDED' });
    expect((await api('DELETE', `${connectors}/${other}`)).status).toBe(202);
  });

  it('tasks: an execution refused by the provider is FAILED with its error; a processed one SUCCEEDED with the payment; others 404', async () => {
    const dir = simulatedDirectory({
      'accounts.json': [{ reference: 'main' }, { reference: 'supplier', type: 'EXTERNAL' }],
      'balances.json': [{ accountReference: 'main', asset: 'EUR/2', amount: 10 }],
    });
    const connectorID = await installSimulated(dir, '1h');
    const install = (await schedulesOf(connectorID))[0].id.replace(/-[a-z]+$/, '-install');
    expect(await settledTask(install)).toMatchObject({ status: 'SUCCEEDED', connectorID });
    const initiate = async (amount: number) =>
      (
        await api('POST', '/api/payments/v3/payment-initiations?noValidation=true', {
          body: {
            reference: `t-${suffix()}`,
            connectorID,
            type: 'TRANSFER',
            amount,
            asset: 'EUR/2',
            sourceAccountID: accountId(connectorID, 'main'),
            destinationAccountID: accountId(connectorID, 'supplier'),
          },
        })
      ).body.data;
    const refused = await initiate(500);
    expect(await settledTask(refused.taskID)).toMatchObject({
      id: refused.taskID,
      status: 'FAILED',
      connectorID,
      error: expect.stringMatching(/insufficient funds/),
    });
    const processed = await initiate(5);
    const task = await settledTask(processed.taskID);
    expect(task).toMatchObject({ status: 'SUCCEEDED', createdObjectID: expect.any(String) });
    expect((await api('GET', `/api/payments/payments/${task.createdObjectID}`)).status).toBe(200);
    for (const id of ['nope', `${install.replace(/-install$/, '-payments')}`])
      expect((await api('GET', `/api/payments/v3/tasks/${id}`)).status).toBe(404);
    expect((await api('DELETE', `${connectors}/${connectorID}`)).status).toBe(202);
  });

  it('capabilities and config descriptions: per connector, per plugin, with an ETag', async () => {
    const connectorID = await installSimulated(simulatedDirectory(), '1h');
    const own = await api('GET', `${connectors}/${connectorID}/capabilities`);
    expect(own.body.data).toEqual([
      'FETCH_ACCOUNTS',
      'FETCH_BALANCES',
      'FETCH_EXTERNAL_ACCOUNTS',
      'FETCH_PAYMENTS',
      'CREATE_BANK_ACCOUNT',
      'CREATE_TRANSFER',
      'CREATE_PAYOUT',
      'ALLOW_FORMANCE_ACCOUNT_CREATION',
      'ALLOW_FORMANCE_PAYMENT_CREATION',
      'FETCH_CONVERSIONS',
      'FETCH_ORDERS',
    ]);
    const all = await api('GET', `${connectors}/capabilities`);
    expect(all.body.data.generic).not.toContain('ALLOW_FORMANCE_PAYMENT_CREATION');
    // The built-in plugins, and the test-only one the integration tier loads through PAYMENTS_CONNECTOR_PLUGINS.
    expect(Object.keys(all.body.data).sort()).toEqual(['adyen', 'fixturebank', 'generic', 'mangopay', 'simulated', 'stripe']);
    const etag = all.headers.get('etag') as string;
    expect((await api('GET', `${connectors}/capabilities`, { headers: { 'If-None-Match': etag } })).status).toBe(304);
    const configs = (await api('GET', `${connectors}/configs`)).body.data;
    expect(configs.simulated.directory).toEqual({ dataType: 'string', required: true });
    expect(configs.generic.pollingPeriod).toEqual({ dataType: 'duration', required: false, defaultValue: '2m' });
    expect((await api('GET', `${connectors}/unknown/capabilities`)).status).toBe(404);
    expect((await api('DELETE', `${connectors}/${connectorID}`)).status).toBe(202);
  });
});
