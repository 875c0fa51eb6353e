import type { Client, Connection } from '@temporalio/client';
import { api } from '../../support/http';
import { eventually, installSimulated, paymentsOf, simulatedDirectory, suffix, writeJson } from '../../support/payments';
import { connectorFetch } from '../../../workflows/payments/connector-fetch';
import { taskQueue, temporalClient } from '../../support/temporal';

const payment = (reference: string, extra: object = {}) => ({
  reference, type: 'PAY-IN', status: 'SUCCEEDED', amount: 1500, asset: 'EUR/2', scheme: 'VISA', createdAt: '2024-03-01T10:00:00Z',
  destinationAccountReference: 'main', ...extra,
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

    const workflow = await client.workflow.getHandle(`connector-${connectorID}-fetch`).describe();
    expect(workflow.status.name).toBe('RUNNING');
    expect(workflow.searchAttributes.PlatformArea).toEqual(['payments']);
    expect(workflow.searchAttributes.ConnectorID).toEqual([connectorID]);

    const first = await eventually(async () => ((await paymentsOf(connectorID)).length === 1 ? paymentsOf(connectorID) : undefined), 30_000, 'p1');
    expect(first[0]).toMatchObject({ reference: 'p1', provider: 'SIMULATED', scheme: 'visa', amount: 1500, connectorID, status: 'SUCCEEDED' });

    // A new payment and a new state of p1 both appear after the next fetch, p1 with a second adjustment.
    writeJson(dir, 'payments.json', [payment('p1', { status: 'REFUNDED', amount: 0, updatedAt: '2024-03-02T10:00:00Z' }), payment('p2')]);
    const second = await eventually(async () => {
      const list = await paymentsOf(connectorID);
      return list.length === 2 && list.find((p) => p.reference === 'p1')?.status === 'REFUNDED' ? list : undefined;
    }, 30_000, 'p2 and the refund');
    const p1 = second.find((p) => p.reference === 'p1');
    expect(p1.adjustments.map((a: any) => a.status)).toEqual(['REFUNDED', 'SUCCEEDED']);

    const config = await api('GET', `/api/payments/v3/connectors/${connectorID}/config`);
    expect(config.body.data).toMatchObject({ directory: expect.stringContaining(dir.split('/').pop() as string), pollingPeriod: '1s' });

    expect((await api('DELETE', `/api/payments/v3/connectors/${connectorID}`)).status).toBe(204);
    const stopped = await eventually(async () => {
      const d = await client.workflow.getHandle(`connector-${connectorID}-fetch`).describe();
      return d.status.name !== 'RUNNING' ? d.status.name : undefined;
    }, 15_000, 'workflow to stop');
    expect(stopped).toBe('CANCELLED');
    writeJson(dir, 'payments.json', [payment('p1'), payment('p2'), payment('p3')]);
    await new Promise((resolve) => setTimeout(resolve, 2500)); // more than two polling periods
    expect((await paymentsOf(connectorID)).map((p) => p.reference).sort()).toEqual(['p1', 'p2']);
    const listed = await api('GET', '/api/payments/v3/connectors?pageSize=1000');
    expect(listed.body.cursor.data.find((c: any) => c.id === connectorID)).toMatchObject({ installed: false, provider: 'SIMULATED' });
  });

  it('continues as new after cyclesPerRun cycles, keeping its workflow id', async () => {
    const dir = simulatedDirectory({ 'accounts.json': [{ reference: 'main' }], 'payments.json': [payment('c1')] });
    const connectorID = await installSimulated(dir, '1h');
    const workflowId = `test-cycles-${connectorID}`;
    const handle = await client.workflow.start(connectorFetch, { taskQueue: taskQueue(), workflowId, args: [{ connectorID, pollingPeriodMs: 100, cyclesPerRun: 2 }] });
    const firstRun = handle.firstExecutionRunId;
    const later = await eventually(async () => {
      const d = await client.workflow.getHandle(workflowId).describe();
      return d.runId !== firstRun ? d : undefined;
    }, 20_000, 'a continued run');
    expect(later.status.name).toBe('RUNNING');
    const history = await client.workflow.getHandle(workflowId, firstRun).fetchHistory();
    expect(history.events?.some((e) => e.workflowExecutionContinuedAsNewEventAttributes)).toBe(true);
    await client.workflow.getHandle(workflowId).terminate('test done');
    expect((await api('DELETE', `/api/payments/v3/connectors/${connectorID}`)).status).toBe(204);
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
    expect((await api('POST', '/api/payments/v3/connectors/install/stripe', { body: { name: 'x' } })).status).toBe(404);
    const name = `dup-${suffix()}`;
    const dir = simulatedDirectory();
    const first = await api('POST', '/api/payments/v3/connectors/install/simulated', { body: { name, directory: dir, pollingPeriod: '1s' } });
    expect(first.status).toBe(202);
    expect((await api('POST', '/api/payments/v3/connectors/install/simulated', { body: { name, directory: dir } })).status).toBe(409);
    expect((await api('DELETE', `/api/payments/v3/connectors/${first.body.data}`)).status).toBe(204);
  });
});
