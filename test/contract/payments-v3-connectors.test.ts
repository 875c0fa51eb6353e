import { isDefined, pollUntil } from '../support/eventually';
import { simulatedDirectory, suffix } from '../support/payments';
import { sdkClient } from './sdk-client';

/**
 * The connector side of Formance's `payments.v3` through the official SDK: install, uninstall, list, configs,
 * capabilities, reset, schedules and tasks. The simulated connector is installed as Formance clients install
 * dummypay (a `Dummypay` config, with the `pageSize` the SDK always adds). Accounts, payments, pools, PSUs,
 * conversions and orders of v3 are not covered here.
 */
const v3 = sdkClient().payments.v3;

async function install(pollingPeriod = '1s'): Promise<string> {
  const res = await v3.installConnector({
    connector: 'simulated',
    v3ConnectorConfig: {
      provider: 'Dummypay',
      name: `sdk-${suffix()}`,
      directory: simulatedDirectory({ 'accounts.json': [{ reference: 'main' }] }),
      pollingPeriod,
    },
  });
  expect(res.statusCode).toBe(202);
  return res.v3InstallConnectorResponse!.data;
}

const settled = (taskID: string) =>
  pollUntil(
    async () => {
      const task = (await v3.getTask({ taskID })).v3GetTaskResponse!.data;
      return task.status !== 'PROCESSING' ? task : undefined;
    },
    isDefined,
    { timeoutMs: 30_000, what: `task ${taskID}` },
  );

const firstSchedule = async (connectorID: string) =>
  (await v3.listConnectorSchedules({ connectorID })).v3ConnectorSchedulesCursorResponse!.cursor.data[0];

describe('contract: payments.v3 connectors through the Formance SDK', () => {
  let connectorID: string;
  beforeAll(async () => {
    connectorID = await install();
  });
  afterAll(async () => {
    await v3.uninstallConnector({ connectorID });
  });

  test('installConnector', async () => {
    const id = await install('30m');
    expect(Buffer.from(id, 'base64url').toString()).toContain('"Provider":"simulated"');
    await v3.uninstallConnector({ connectorID: id });
  });

  test('uninstallConnector', async () => {
    const id = await install('30m');
    const res = await v3.uninstallConnector({ connectorID: id });
    expect(res.statusCode).toBe(202);
    const { taskID } = res.v3UninstallConnectorResponse!.data;
    expect(await settled(taskID)).toMatchObject({ id: taskID, status: 'SUCCEEDED', connectorID: id });
  });

  test('listConnectors', async () => {
    const cursor = (await v3.listConnectors({ pageSize: 1000 })).v3ConnectorsCursorResponse!.cursor;
    const mine = cursor.data.find((c) => c.id === connectorID)!;
    // The SDK's `config` type has no members, so it reads as {}; its presence is what the SDK checks.
    expect(mine).toMatchObject({ id: connectorID, provider: 'SIMULATED', scheduledForDeletion: false, config: {} });
    expect(mine.reference).toMatch(/^[0-9a-f-]{36}$/);
    expect(mine.capabilities).toContain('FETCH_PAYMENTS');
  });

  test('getConnectorConfig', async () => {
    const config = (await v3.getConnectorConfig({ connectorID })).v3GetConnectorConfigResponse!.data;
    expect(config).toMatchObject({ provider: 'Dummypay', pollingPeriod: '1s' });
  });

  test('v3UpdateConnectorConfig', async () => {
    const id = await install('30m');
    const config = (await v3.getConnectorConfig({ connectorID: id })).v3GetConnectorConfigResponse!.data;
    const res = await v3.v3UpdateConnectorConfig({ connectorID: id, v3ConnectorConfig: { ...config, pollingPeriod: '10m' } as typeof config });
    expect(res.statusCode).toBe(204);
    expect((await v3.getConnectorConfig({ connectorID: id })).v3GetConnectorConfigResponse!.data.pollingPeriod).toBe('10m');
    await v3.uninstallConnector({ connectorID: id });
  });

  test('listConnectorConfigs', async () => {
    const configs = (await v3.listConnectorConfigs()).v3ConnectorConfigsResponse!.data;
    expect(configs.simulated.directory).toEqual({ dataType: 'string', required: true });
    expect(configs.generic.endpoint.required).toBe(true);
  });

  test('getConnectorCapabilities', async () => {
    const capabilities = (await v3.getConnectorCapabilities({ connectorID })).v3ConnectorCapabilityResponse!.data;
    expect(capabilities).toEqual(expect.arrayContaining(['FETCH_ACCOUNTS', 'FETCH_BALANCES', 'FETCH_PAYMENTS', 'CREATE_TRANSFER', 'CREATE_PAYOUT']));
  });

  test('listConnectorCapabilities', async () => {
    const first = await v3.listConnectorCapabilities({});
    expect(first.statusCode).toBe(200);
    expect(first.v3ConnectorCapabilitiesResponse!.data.generic).toContain('FETCH_PAYMENTS');
    const etag = first.headers.etag?.[0] ?? first.rawResponse.headers.get('etag')!;
    const again = await v3.listConnectorCapabilities({ ifNoneMatch: etag });
    expect(again.statusCode).toBe(304);
  });

  test('resetConnector', async () => {
    const res = await v3.resetConnector({ connectorID });
    expect(res.statusCode).toBe(202);
    const taskID = res.v3ResetConnectorResponse!.data;
    expect(await settled(taskID)).toMatchObject({ status: 'SUCCEEDED', connectorID });
  });

  test('listConnectorSchedules', async () => {
    const cursor = (await v3.listConnectorSchedules({ connectorID, pageSize: 10 })).v3ConnectorSchedulesCursorResponse!.cursor;
    expect(cursor.data).toHaveLength(5);
    for (const schedule of cursor.data) expect(schedule).toMatchObject({ connectorID, id: expect.stringMatching(/^connector-simulated-sdk-/) });
  });

  test('getConnectorSchedule', async () => {
    const { id } = await firstSchedule(connectorID);
    const schedule = (await v3.getConnectorSchedule({ connectorID, scheduleID: id })).v3ConnectorScheduleResponse!.data;
    expect(schedule).toMatchObject({ id, connectorID });
    expect(schedule.createdAt).toBeInstanceOf(Date);
  });

  test('listConnectorScheduleInstances', async () => {
    const { id } = await firstSchedule(connectorID);
    const instances = await pollUntil(
      async () => {
        const data = (await v3.listConnectorScheduleInstances({ connectorID, scheduleID: id, pageSize: 5 }))
          .v3ConnectorScheduleInstancesCursorResponse!.cursor.data;
        return data.some((i) => i.terminated) ? data : undefined;
      },
      isDefined,
      { timeoutMs: 30_000, what: 'a finished run' },
    );
    const done = instances.find((i) => i.terminated)!;
    expect(done).toMatchObject({ scheduleID: id, connectorID });
    expect(done.id.startsWith(`${id}-`)).toBe(true);
    expect(done.terminatedAt).toBeInstanceOf(Date);
  });

  test('getTask', async () => {
    const taskID = (await v3.resetConnector({ connectorID })).v3ResetConnectorResponse!.data;
    const task = (await v3.getTask({ taskID })).v3GetTaskResponse!.data;
    expect(task.id).toBe(taskID);
    expect(['PROCESSING', 'SUCCEEDED']).toContain(task.status);
    expect(task.createdAt).toBeInstanceOf(Date);
    expect(await settled(taskID)).toMatchObject({ status: 'SUCCEEDED' });
  });
});
