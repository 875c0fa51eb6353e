import fs from 'node:fs';
import path from 'node:path';
import { parseJson } from '../../../lib/json';
import { control } from '../../support/control';
import { api } from '../../support/http';
import { newLedger } from '../../support/ledger';
import { hashedUpTo } from '../../support/ledger-logs';
import { ledgerLogs, scratchDatabase, writeLogs } from '../../support/ledger-pipelines';
import { temporalClient } from '../../support/temporal';
import { isTruthy, pollUntil } from '../../support/eventually';
import { startReceiver } from '../../support/webhook-receiver';

const createExporter = (body: unknown) => api('POST', '/api/ledger/v2/_/exporters', { body });
/** Pipelines this file started: each polls its ledger every second until deleted, so they go when the file is done. */
const started: Array<[string, string]> = [];
const createPipeline = async (ledger: string, exporterID: string) => {
  const res = await api('POST', `/api/ledger/v2/${ledger}/pipelines`, { body: { exporterID } });
  if (res.status === 201) started.push([ledger, res.body.data.id]);
  return res;
};
afterAll(async () => {
  for (const [ledger, id] of started) await api('DELETE', `/api/ledger/v2/${ledger}/pipelines/${id}`);
});
const pipelineState = async (ledger: string, id: string) => (await api('GET', `/api/ledger/v2/${ledger}/pipelines/${id}`)).body.data;

/** Waits until the pipeline's position is the ledger's last log (every log hashed first). */
async function caughtUp(ledger: string, pipelineID: string): Promise<number> {
  const { logs } = await hashedUpTo(ledger);
  await pollUntil(async () => (await pipelineState(ledger, pipelineID)).lastLogID === logs - 1, isTruthy, {
    timeoutMs: 60_000,
    what: `pipeline ${pipelineID} to reach log ${logs - 1}`,
  });
  return logs;
}

describe('ledger pipelines: postgres driver', () => {
  let target: Awaited<ReturnType<typeof scratchDatabase>>;
  beforeAll(async () => {
    target = await scratchDatabase();
  });
  afterAll(() => target.drop());

  /** The target's rows, as the source's logs read (ids, types, data, dates and hashes). */
  const targetRows = (ledger: string) =>
    target.query<{ id: string; type: string; data: unknown; date: Date; hash: string }>(
      'SELECT id, type, data, date, hash FROM ledger_logs WHERE ledger = $1 ORDER BY id',
      [ledger],
    );
  const asSource = (rows: Awaited<ReturnType<typeof targetRows>>) =>
    rows.map((r) => ({ id: Number(r.id), type: r.type, data: r.data, date: r.date.toISOString(), hash: r.hash }));

  test('a pipeline keeps exporting across a killed worker; the target ends with exactly the source logs', async () => {
    const ledger = await newLedger('pipe-crash');
    await writeLogs(ledger, 30);
    const exporter = await createExporter({ driver: 'postgres', config: { url: target.url, batching: { maxItems: 3 } } });
    expect(exporter.status).toBe(201);
    const pipeline = (await createPipeline(ledger, exporter.body.data.id)).body.data;

    // Readable id in the Temporal UI, and a run under way.
    const { client, connection } = await temporalClient();
    try {
      const described = await client.workflow.getHandle(`ledger-pipeline-${ledger}-${pipeline.id}`).describe();
      expect(described.status.name).toBe('RUNNING');
    } finally {
      await connection.close();
    }

    // Writes go on while the worker is killed mid-export and comes back.
    const writing = writeLogs(ledger, 30);
    await control('worker', 'kill');
    await writing;
    await writeLogs(ledger, 10);
    const logs = await caughtUp(ledger, pipeline.id);
    expect(logs).toBe(70);

    const source = await ledgerLogs(ledger);
    const rows = await targetRows(ledger);
    expect(rows.map((r) => Number(r.id))).toEqual([...Array(70).keys()]);
    expect(asSource(rows)).toEqual(source);
  }, 120_000);

  test('a reset exports the ledger again; ON CONFLICT leaves one row per log', async () => {
    const ledger = await newLedger('pipe-reset');
    await writeLogs(ledger, 8);
    const exporter = (await createExporter({ driver: 'postgres', config: { url: target.url } })).body.data;
    const pipeline = (await createPipeline(ledger, exporter.id)).body.data;
    await caughtUp(ledger, pipeline.id);
    // The reset wakes the running pipeline, whose next batch could export the ledger again and move the position before
    // the read below: the target table, held in SHARE mode meanwhile, keeps that batch's INSERT (and so its advance)
    // waiting until the reset position has been read.
    await target.query('BEGIN');
    try {
      await target.query('LOCK TABLE ledger_logs IN SHARE MODE');
      expect((await api('POST', `/api/ledger/v2/${ledger}/pipelines/${pipeline.id}/reset`)).status).toBe(202);
      expect((await pipelineState(ledger, pipeline.id)).lastLogID).toBeUndefined();
    } finally {
      await target.query('COMMIT');
    }
    await caughtUp(ledger, pipeline.id);
    expect(asSource(await targetRows(ledger))).toEqual(await ledgerLogs(ledger));
  }, 60_000);

  test('a stopped pipeline exports nothing more; started again it resumes after its last log', async () => {
    const ledger = await newLedger('pipe-stop');
    await writeLogs(ledger, 4);
    const exporter = (await createExporter({ driver: 'postgres', config: { url: target.url } })).body.data;
    const pipeline = (await createPipeline(ledger, exporter.id)).body.data;
    await caughtUp(ledger, pipeline.id);
    expect((await api('POST', `/api/ledger/v2/${ledger}/pipelines/${pipeline.id}/stop`)).status).toBe(202);
    await writeLogs(ledger, 4);
    await hashedUpTo(ledger);
    // Only the pipeline's workflow exports: checked once its run has ended (cancelled, or a batch found the row
    // stopped), after which no batch starts.
    const { client, connection } = await temporalClient();
    try {
      const handle = client.workflow.getHandle(`ledger-pipeline-${ledger}-${pipeline.id}`);
      const status = await pollUntil(
        async () => (await handle.describe()).status.name,
        (name) => name !== 'RUNNING',
        {
          what: 'the stopped pipeline run to end',
        },
      );
      expect(['CANCELLED', 'COMPLETED']).toContain(status);
    } finally {
      await connection.close();
    }
    expect((await targetRows(ledger)).length).toBe(4);
    expect((await pipelineState(ledger, pipeline.id)).lastLogID).toBe(3);
    expect((await api('POST', `/api/ledger/v2/${ledger}/pipelines/${pipeline.id}/start`)).status).toBe(202);
    await caughtUp(ledger, pipeline.id);
    expect(asSource(await targetRows(ledger))).toEqual(await ledgerLogs(ledger));
  }, 60_000);

  test('the database password is never echoed', async () => {
    const created = await createExporter({ driver: 'postgres', config: { url: target.url, table: 'copy_of_logs' } });
    expect(created.status).toBe(201);
    const password = new URL(target.url).password;
    expect(password.length).toBeGreaterThan(0);
    const read = await api('GET', `/api/ledger/v2/_/exporters/${created.body.data.id}`);
    for (const text of [created.text, read.text]) {
      expect(text).not.toContain(`:${password}@`);
      expect(text).toContain('********');
    }
    expect(read.body.data.config.table).toBe('copy_of_logs');
  });
});

describe('ledger pipelines: http driver', () => {
  test('the receiver gets every log once, in order, through retries', async () => {
    // The first two requests fail: the same batch is sent again until it is accepted.
    const receiver = await startReceiver((n) => ({ status: n <= 2 ? 500 : 200 }));
    try {
      const ledger = await newLedger('pipe-http');
      await writeLogs(ledger, 12);
      await hashedUpTo(ledger);
      const exporter = (await createExporter({ driver: 'http', config: { url: receiver.url, batching: { maxItems: 5 } } })).body.data;
      const pipeline = (await createPipeline(ledger, exporter.id)).body.data;
      await caughtUp(ledger, pipeline.id);

      const accepted = receiver.received.slice(2);
      const batches = accepted.map((r) => ({ headers: r.headers, logs: parseJson(r.body) as Array<{ ledger: string; id: number }> }));
      for (const batch of batches) {
        expect(batch.headers['x-ledger-pipeline-id']).toBe(pipeline.id);
        expect(Number(batch.headers['x-ledger-first-log-id'])).toBe(batch.logs[0].id);
        expect(Number(batch.headers['x-ledger-last-log-id'])).toBe(batch.logs[batch.logs.length - 1].id);
        expect(batch.logs.length).toBeLessThanOrEqual(5);
      }
      // A retry reads the batch again from the saved position: with every log hashed, the same five logs.
      expect(receiver.received[0].body).toBe(accepted[0].body);
      expect(receiver.received[1].body).toBe(accepted[0].body);
      const ids = batches.flatMap((b) => b.logs.map((l) => l.id));
      expect(ids).toEqual([...Array(12).keys()]);
      const source = await ledgerLogs(ledger);
      expect(batches.flatMap((b) => b.logs)).toEqual(source.map((log) => ({ ...log, ledger })));
    } finally {
      await receiver.close();
    }
  }, 60_000);
});

describe('ledger exporters and pipelines: refusals', () => {
  test.each([
    [
      'a driver this platform does not have',
      { driver: 'clickhouse', config: { dsn: 'clickhouse://x' } },
      'supported drivers: http, postgres, stdout, noop',
    ],
    ['an http URL in a blocked range', { driver: 'http', config: { url: 'http://169.254.169.254/latest' } }, 'blocked range'],
    ['a postgres URL in a blocked range', { driver: 'postgres', config: { url: 'postgres://u:p@10.1.2.3/db' } }, 'blocked range'],
    ['an unknown config member', { driver: 'http', config: { url: 'http://127.0.0.1:1/x', token: 'x' } }, 'body.config.token'],
    ['a missing url', { driver: 'postgres', config: {} }, 'body.config.url'],
    ['a bad table name', { driver: 'postgres', config: { url: 'postgres://u:p@127.0.0.1/db', table: 'x; drop' } }, 'body.config.table'],
    ['a batch size above 1000', { driver: 'http', config: { url: 'http://127.0.0.1:1/x', batching: { maxItems: 1001 } } }, 'maxItems'],
  ])('%s is a 400', async (_name, body, message) => {
    const res = await createExporter(body);
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
    expect(res.body.errorMessage).toContain(message);
  });

  test('pipelines: unknown ledger 404, unknown exporter 400, a second pipeline to one exporter 400', async () => {
    const exporter = (await createExporter({ driver: 'http', config: { url: 'http://127.0.0.1:1/x' } })).body.data;
    expect((await createPipeline('no-such-ledger-here', exporter.id)).status).toBe(404);
    const ledger = await newLedger('pipe-refusals');
    const unknown = await createPipeline(ledger, '00000000-0000-4000-8000-000000000000');
    expect([unknown.status, unknown.body.errorCode]).toEqual([400, 'VALIDATION']);
    const first = await createPipeline(ledger, exporter.id);
    expect(first.status).toBe(201);
    const second = await createPipeline(ledger, exporter.id);
    expect([second.status, second.body.errorCode]).toEqual([400, 'VALIDATION']);
    expect((await api('GET', `/api/ledger/v2/${ledger}/pipelines/not-a-uuid`)).status).toBe(404);
    await api('DELETE', `/api/ledger/v2/${ledger}/pipelines/${first.body.data.id}`);
  });
});

describe('ledger pipelines: stdout and noop drivers', () => {
  const workerOutput = () => fs.readFileSync(path.join(process.env.TEST_PLATFORM_DATA_DIR as string, 'platform.log'), 'utf8');

  test("stdout writes each log as one JSON line of the worker's output, with its pipeline", async () => {
    const ledger = await newLedger('pipe-stdout');
    await writeLogs(ledger, 3);
    const exporter = await createExporter({ driver: 'stdout', config: {} });
    expect(exporter.status).toBe(201);
    const pipeline = (await createPipeline(ledger, exporter.body.data.id)).body.data;
    await caughtUp(ledger, pipeline.id);
    const lines = workerOutput()
      .split('\n')
      .map((line) => line.replace(/^worker\s*\| /, ''))
      .filter((line) => line.includes(`"pipelineID":"${pipeline.id}"`))
      .map((line) => parseJson(line) as { exporter: string; log: { ledger: string; id: number; type: string; hash: string } });
    const source = await ledgerLogs(ledger);
    // At least once: a retried batch may repeat lines, never skip one.
    const exported = [...new Map(lines.map((l) => [l.log.id, l.log])).values()].sort((a, b) => Number(a.id) - Number(b.id));
    expect(exported.map((l) => [Number(l.id), l.type, l.hash])).toEqual(source.map((l) => [l.id, l.type, l.hash]));
    expect(lines.every((l) => l.exporter === 'stdout' && l.log.ledger === ledger)).toBe(true);
    // A running pipeline polls for the rest of the suite: delete it once done, as an operator would.
    expect((await api('DELETE', `/api/ledger/v2/${ledger}/pipelines/${pipeline.id}`)).status).toBe(204);
  });

  test('noop advances over every log; both refuse settings they do not have', async () => {
    const ledger = await newLedger('pipe-noop');
    await writeLogs(ledger, 2);
    const exporter = (await createExporter({ driver: 'noop', config: { batching: { maxItems: 1 } } })).body.data;
    const pipeline = (await createPipeline(ledger, exporter.id)).body.data;
    await caughtUp(ledger, pipeline.id);
    expect((await api('DELETE', `/api/ledger/v2/${ledger}/pipelines/${pipeline.id}`)).status).toBe(204);
    const refused = await createExporter({ driver: 'stdout', config: { url: 'http://127.0.0.1:1' } });
    expect([refused.status, refused.body.errorCode, refused.body.errorMessage]).toEqual([
      400,
      'VALIDATION',
      expect.stringContaining('body.config.url: unknown member'),
    ]);
  });
});
