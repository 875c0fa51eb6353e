import type { Client, Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../../../lib/search-attributes';
import { api } from '../../support/http';
import { isDefined, pollUntil } from '../../support/eventually';
import { installSimulated, paymentsOf, simulatedDirectory, suffix, writeJson } from '../../support/payments';
import { temporalClient } from '../../support/temporal';
import { connectorLabel } from '../../../areas/payments/ids';

const payment = (reference: string, extra: object = {}) => ({
  reference,
  type: 'PAY-IN',
  status: 'SUCCEEDED',
  amount: 1500,
  asset: 'EUR/2',
  scheme: 'VISA',
  createdAt: '2024-03-01T10:00:00Z',
  destinationAccountReference: 'main',
  ...extra,
});

describe('simulated connector on the real Temporal worker', () => {
  let client: Client;
  let connection: Connection;
  beforeAll(async () => ({ client, connection } = await temporalClient()));
  afterAll(async () => connection.close());

  it('fetches the files after install, upserts idempotently, and stops fetching after uninstall', async () => {
    const dir = simulatedDirectory({
      'accounts.json': [{ reference: 'main', name: 'Main', type: 'INTERNAL', defaultAsset: 'EUR/2' }],
      'balances.json': [{ accountReference: 'main', asset: 'EUR/2', amount: 10_000 }],
      'payments.json': [payment('p1')],
    });
    const connectorID = await installSimulated(dir, '1s');

    const name = (await api('GET', `/api/payments/v3/connectors/${connectorID}/config`)).body.data.name;
    const label = connectorLabel({ id: connectorID, provider: 'simulated', name });
    expect(label).toMatch(/^connector-simulated-sim-[0-9a-f]{8}-[0-9a-f]{8}$/);
    for (const kind of ['accounts', 'balances', 'payments', 'conversions', 'orders']) {
      const schedule = await client.schedule.getHandle(`${label}-${kind}`).describe();
      expect(schedule.spec.intervals?.map((i) => i.every)).toEqual([1000]);
      expect(schedule.policies.overlap).toBe('SKIP');
      expect(schedule.action).toMatchObject({
        workflowType: 'connectorPoll',
        workflowId: `${label}-${kind}`,
        args: [{ connectorID, kind }],
        staticSummary: expect.stringContaining(kind),
      });
      expect(schedule.typedSearchAttributes.get(SEARCH_ATTRIBUTES.ConnectorID)).toBe(connectorID);
      expect(schedule.typedSearchAttributes.get(SEARCH_ATTRIBUTES.PlatformArea)).toBe('payments');
      expect(schedule.memo).toEqual({ connectorID, kind });
    }

    const first = await pollUntil(async () => ((await paymentsOf(connectorID)).length === 1 ? paymentsOf(connectorID) : undefined), isDefined, {
      timeoutMs: 30_000,
      what: 'p1',
    });
    expect(first[0]).toMatchObject({ reference: 'p1', provider: 'SIMULATED', scheme: 'visa', amount: 1500, connectorID, status: 'SUCCEEDED' });

    // A new payment and a new state of p1 both appear after the next fetch, p1 with a second adjustment.
    writeJson(dir, 'payments.json', [payment('p1', { status: 'REFUNDED', amount: 0, updatedAt: '2024-03-02T10:00:00Z' }), payment('p2')]);
    const second = await pollUntil(
      async () => {
        const list = await paymentsOf(connectorID);
        return list.length === 2 && list.find((p) => p.reference === 'p1')?.status === 'REFUNDED' ? list : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'p2 and the refund' },
    );
    const p1 = second.find((p) => p.reference === 'p1');
    expect(p1.adjustments.map((a: any) => a.status)).toEqual(['REFUNDED', 'SUCCEEDED']);

    const config = await api('GET', `/api/payments/v3/connectors/${connectorID}/config`);
    expect(config.body.data).toMatchObject({ directory: expect.stringContaining(dir.split('/').pop() as string), pollingPeriod: '1s' });

    const uninstall = await api('DELETE', `/api/payments/v3/connectors/${connectorID}`);
    expect(uninstall.status).toBe(202);
    expect(uninstall.body.data.taskID).toBe(`${label}-uninstall`);
    const task = await pollUntil(
      async () => {
        const t = (await api('GET', `/api/payments/v3/tasks/${uninstall.body.data.taskID}`)).body.data;
        return t.status !== 'PROCESSING' ? t : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'the uninstall task' },
    );
    expect(task).toMatchObject({ id: `${label}-uninstall`, status: 'SUCCEEDED', connectorID });
    const kinds = ['accounts', 'balances', 'payments', 'conversions', 'orders'];
    for (const kind of kinds) {
      await expect(client.schedule.getHandle(`${label}-${kind}`).describe()).rejects.toThrow(/not found/i);
    }
    // An uninstalled connector fetches nothing: its schedules are gone, and the runs they started that are still going
    // find it uninstalled. Checked once none is going.
    writeJson(dir, 'payments.json', [payment('p1'), payment('p2'), payment('p3')]);
    const scheduled = kinds.map((kind) => `'${label}-${kind}'`).join(', ');
    await pollUntil(
      async () => {
        const running = [];
        for await (const run of client.workflow.list({ query: `TemporalScheduledById IN (${scheduled}) AND ExecutionStatus = 'Running'` }))
          running.push(run.workflowId);
        return running;
      },
      (running) => running.length === 0,
      { what: "the end of the uninstalled connector's runs" },
    );
    expect((await paymentsOf(connectorID)).map((p) => p.reference).sort()).toEqual(['p1', 'p2']);
    const listed = await api('GET', '/api/payments/v3/connectors?pageSize=1000');
    expect(listed.body.cursor.data.find((c: any) => c.id === connectorID)).toMatchObject({
      installed: false,
      scheduledForDeletion: true,
      provider: 'SIMULATED',
    });
  });

  it.each([
    ['a directory outside DATA_DIR', { directory: '/etc' }],
    ['a missing directory', { directory: '/nonexistent/payments' }],
    ['a relative escape', { directory: '../../../etc' }],
    ['a bad polling period', { pollingPeriod: '1 minute' }],
    ['a polling period under 1s', { pollingPeriod: '10ms' }],
    ['an unknown field', { colour: 'red' }],
  ])('install refuses %s with 400', async (_name, override) => {
    const body = { name: `bad-${suffix()}`, directory: simulatedDirectory(), pollingPeriod: '1s', ...override };
    const res = await api('POST', '/api/payments/v3/connectors/install/simulated', { body });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
  });

  it('refuses an unknown provider and a second connector with the same name', async () => {
    expect((await api('POST', '/api/payments/v3/connectors/install/modulr', { body: { name: 'x' } })).status).toBe(404);
    const name = `dup-${suffix()}`;
    const dir = simulatedDirectory();
    const first = await api('POST', '/api/payments/v3/connectors/install/simulated', { body: { name, directory: dir, pollingPeriod: '1s' } });
    expect(first.status).toBe(202);
    expect((await api('POST', '/api/payments/v3/connectors/install/simulated', { body: { name, directory: dir } })).status).toBe(409);
    expect((await api('DELETE', `/api/payments/v3/connectors/${first.body.data}`)).status).toBe(202);
  });
});
