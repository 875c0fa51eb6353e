import { parseJson } from '../../lib/json';
import { api } from '../support/http';
import { newLedger } from '../support/ledger';
import { hashedUpTo } from '../support/ledger-logs';
import { writeLogs } from '../support/ledger-pipelines';
import { isTruthy, pollUntil } from '../support/eventually';
import { startReceiver } from '../support/webhook-receiver';
import { sdkClientWithToken } from './sdk-client';

/**
 * ledger.v2 exporters, pipelines and runQuery through Formance's SDK: one test per method. A call that resolves proves
 * the path, status and response shape (the SDK checks them with zod); each test then checks what came back. The SDK
 * sends no token on most of these operations, hence sdkClientWithToken.
 */
describe('contract: ledger.v2 exporters, pipelines and queries through the Formance SDK', () => {
  const sdk = sdkClientWithToken();
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let ledger: string;

  const newExporter = async () =>
    (await sdk.ledger.v2.createExporter({ driver: 'http', config: { url: receiver.url } })).v2CreateExporterResponse!.data;
  const newPipeline = async (exporterID: string) =>
    (await sdk.ledger.v2.createPipeline({ ledger, v2CreatePipelineRequest: { exporterID } })).v2CreatePipelineResponse!.data;
  const readPipeline = async (pipelineID: string) => (await sdk.ledger.v2.getPipelineState({ ledger, pipelineID })).v2GetPipelineStateResponse!.data;
  /** Log ids the receiver got, each once (a retried batch counts once). */
  const receivedIds = () =>
    [...new Set(receiver.received.flatMap((r) => (parseJson(r.body) as Array<{ id: number }>).map((l) => Number(l.id))))].sort((a, b) => a - b);

  beforeAll(async () => {
    receiver = await startReceiver();
    ledger = await newLedger('pipelines');
    await writeLogs(ledger, 3);
    await hashedUpTo(ledger);
  });
  afterAll(() => receiver.close());

  test('createExporter', async () => {
    const exporter = await newExporter();
    expect(exporter).toEqual({ id: expect.any(String), driver: 'http', config: { url: receiver.url }, createdAt: expect.any(Date) });
  });

  test('listExporters', async () => {
    const exporter = await newExporter();
    const listed = (await sdk.ledger.v2.listExporters()).v2ExportersCursorResponse!.cursor;
    expect(listed.pageSize).toBe(15);
    expect(listed.data.length).toBeGreaterThan(0);
    // Oldest first: page on (the SDK's method takes no cursor) until the new one shows.
    let ids = listed.data.map((e) => e.id);
    let next = listed.hasMore ? listed.next : undefined;
    while (!ids.includes(exporter.id) && next) {
      const page = (await api('GET', `/api/ledger/v2/_/exporters?cursor=${next}`)).body.cursor;
      ids = ids.concat(page.data.map((e: { id: string }) => e.id));
      next = page.hasMore ? page.next : undefined;
    }
    expect(ids).toContain(exporter.id);
  });

  test('getExporterState', async () => {
    const exporter = await newExporter();
    const read = (await sdk.ledger.v2.getExporterState({ exporterID: exporter.id })).v2GetExporterStateResponse!.data;
    expect(read).toEqual(exporter);
  });

  test('updateExporter', async () => {
    const exporter = await newExporter();
    const res = await sdk.ledger.v2.updateExporter({
      exporterID: exporter.id,
      v2ExporterConfiguration: { driver: 'http', config: { url: `${receiver.url}/v2`, batching: { maxItems: 10 } } },
    });
    expect(res.statusCode).toBe(204);
    const read = (await sdk.ledger.v2.getExporterState({ exporterID: exporter.id })).v2GetExporterStateResponse!.data;
    expect(read.config).toEqual({ url: `${receiver.url}/v2`, batching: { maxItems: 10 } });
  });

  test('deleteExporter', async () => {
    const exporter = await newExporter();
    expect((await sdk.ledger.v2.deleteExporter({ exporterID: exporter.id })).statusCode).toBe(204);
    await expect(sdk.ledger.v2.getExporterState({ exporterID: exporter.id })).rejects.toMatchObject({ statusCode: 404, errorCode: 'NOT_FOUND' });
  });

  test('createPipeline', async () => {
    const exporter = await newExporter();
    const pipeline = await newPipeline(exporter.id);
    expect(pipeline).toEqual({ id: expect.any(String), ledger, exporterID: exporter.id, enabled: true, createdAt: expect.any(Date) });
    // Created started: the receiver gets the ledger's three logs.
    await pollUntil(async () => (await readPipeline(pipeline.id)).lastLogID === 2, isTruthy, {
      timeoutMs: 30_000,
      what: 'the pipeline to export the logs',
    });
    expect(receivedIds()).toEqual([0, 1, 2]);
  });

  test('listPipelines', async () => {
    const exporter = await newExporter();
    const pipeline = await newPipeline(exporter.id);
    const listed = (await sdk.ledger.v2.listPipelines({ ledger })).v2PipelinesCursorResponse!.cursor;
    expect(listed.data.map((p) => p.id)).toContain(pipeline.id);
    expect(listed.data.every((p) => p.ledger === ledger)).toBe(true);
  });

  test('getPipelineState', async () => {
    const exporter = await newExporter();
    const pipeline = await newPipeline(exporter.id);
    const state = await pollUntil(
      async () => {
        const read = await readPipeline(pipeline.id);
        return read.lastLogID === 2 ? read : undefined;
      },
      isTruthy,
      { timeoutMs: 30_000, what: 'the pipeline to catch up' },
    );
    expect(state).toEqual({ ...pipeline, lastLogID: 2 });
  });

  test('stopPipeline', async () => {
    const pipeline = await newPipeline((await newExporter()).id);
    expect((await sdk.ledger.v2.stopPipeline({ ledger, pipelineID: pipeline.id })).statusCode).toBe(202);
    expect((await readPipeline(pipeline.id)).enabled).toBe(false);
    await expect(sdk.ledger.v2.stopPipeline({ ledger, pipelineID: pipeline.id })).rejects.toMatchObject({ statusCode: 400, errorCode: 'VALIDATION' });
  });

  test('startPipeline', async () => {
    const pipeline = await newPipeline((await newExporter()).id);
    await sdk.ledger.v2.stopPipeline({ ledger, pipelineID: pipeline.id });
    expect((await sdk.ledger.v2.startPipeline({ ledger, pipelineID: pipeline.id })).statusCode).toBe(202);
    expect((await readPipeline(pipeline.id)).enabled).toBe(true);
    await pollUntil(async () => (await readPipeline(pipeline.id)).lastLogID === 2, isTruthy, {
      timeoutMs: 30_000,
      what: 'the restarted pipeline to catch up',
    });
    await expect(sdk.ledger.v2.startPipeline({ ledger, pipelineID: pipeline.id })).rejects.toMatchObject({
      statusCode: 400,
      errorCode: 'VALIDATION',
    });
  });

  test('resetPipeline', async () => {
    const pipeline = await newPipeline((await newExporter()).id);
    await pollUntil(async () => (await readPipeline(pipeline.id)).lastLogID === 2, isTruthy, { timeoutMs: 30_000, what: 'the pipeline to catch up' });
    await sdk.ledger.v2.stopPipeline({ ledger, pipelineID: pipeline.id });
    expect((await sdk.ledger.v2.resetPipeline({ ledger, pipelineID: pipeline.id })).statusCode).toBe(202);
    const reset = await readPipeline(pipeline.id);
    expect(reset.lastLogID).toBeUndefined();
    expect(reset.enabled).toBe(false);
  });

  test('deletePipeline', async () => {
    const exporter = await newExporter();
    const pipeline = await newPipeline(exporter.id);
    // An exporter a pipeline uses cannot be deleted (Formance: 400).
    await expect(sdk.ledger.v2.deleteExporter({ exporterID: exporter.id })).rejects.toMatchObject({ statusCode: 400, errorCode: 'VALIDATION' });
    expect((await sdk.ledger.v2.deletePipeline({ ledger, pipelineID: pipeline.id })).statusCode).toBe(204);
    await expect(sdk.ledger.v2.getPipelineState({ ledger, pipelineID: pipeline.id })).rejects.toMatchObject({
      statusCode: 404,
      errorCode: 'NOT_FOUND',
    });
    expect((await sdk.ledger.v2.deleteExporter({ exporterID: exporter.id })).statusCode).toBe(204);
  });

  test("runQuery: a template of the schema version runs as its resource's list, with the request's variables", async () => {
    const chart = { world: {}, users: { additionalProperties: { $userID: { dotPattern: '^[0-9]+$' } } } };
    await sdk.ledger.v2.insertSchema({
      ledger,
      version: 'q1',
      v2SchemaData: {
        chart,
        queries: {
          user: { resource: 'accounts', body: { $match: { address: '${account}' } }, vars: { account: { type: 'string' } } },
          first: { resource: 'accounts', body: { $match: { address: '${account}' } }, vars: { account: { type: 'string', default: 'users:1' } } },
        },
      },
    });
    for (const [user, amount] of [
      ['users:1', 10],
      ['users:2', 70],
    ] as const) {
      await sdk.ledger.v2.createTransaction({
        ledger,
        v2PostTransaction: { postings: [{ source: 'world', destination: user, amount: BigInt(amount), asset: 'USD/2' }], metadata: {} },
      });
    }
    const accounts = await sdk.ledger.v2.runQuery({
      ledger,
      id: 'user',
      schemaVersion: 'q1',
      pageSize: 10,
      requestBody: { vars: { account: 'users:2' } },
    });
    expect(accounts.statusCode).toBe(200);
    const page = accounts.oneOf as { cursor: { data: Array<{ address: string }> } };
    expect(page.cursor.data.map((a) => a.address)).toEqual(['users:2']);

    const defaulted = await sdk.ledger.v2.runQuery({ ledger, id: 'first', schemaVersion: 'q1', requestBody: {} });
    expect((defaulted.oneOf as { cursor: { data: Array<{ address: string }> } }).cursor.data.map((a) => a.address)).toEqual(['users:1']);
    await expect(sdk.ledger.v2.runQuery({ ledger, id: 'user', schemaVersion: 'q1', requestBody: {} })).rejects.toMatchObject({
      statusCode: 400,
      errorCode: 'VALIDATION',
      errorMessage: expect.stringContaining('vars.account'),
    });
    await expect(
      sdk.ledger.v2.runQuery({ ledger, id: 'balances', schemaVersion: 'q1', pageSize: 10, requestBody: { vars: { account: 'users:1' } } }),
    ).rejects.toMatchObject({ statusCode: 404, errorCode: 'NOT_FOUND', errorMessage: expect.stringContaining('"balances"') });
  });
});
