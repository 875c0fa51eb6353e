import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDb } from '../../../db/knex';
import { freePort } from '../../../scripts/stack/ports';
import { startPlatform, type RunningPlatform } from '../../../scripts/stack/platform';
import { isDefined, pollUntil } from '../../support/eventually';
import { startOtlpReceiver, type ReceivedSpan } from '../../support/otlp-receiver';
import { testTempDir } from '../../support/temp-dir';

/**
 * Tracing end to end: a platform of its own (API and worker with OTEL_* set, on a database and task queue of their
 * own, against the run's PostgreSQL server and Temporal) exporting to an OTLP receiver in the test.
 */
describe('OpenTelemetry traces', () => {
  const receiver: { value?: Awaited<ReturnType<typeof startOtlpReceiver>> } = {};
  let platform: RunningPlatform;
  let token: string;
  const lines: string[] = [];
  const database = `otel_${randomBytes(4).toString('hex')}`;
  const admin = createDb(process.env.TEST_DATABASE_URL as string, { poolMax: 1 });
  /** The URL of this platform's own database. */
  const databaseUrl = () => {
    const url = new URL(process.env.TEST_DATABASE_URL as string);
    url.pathname = `/${database}`;
    return url.toString();
  };

  /**
   * The third party of the outbound calls, on 127.0.0.1, keeping every request it gets: a webhook endpoint (`/hook`) and
   * a provider of the generic connector's contract whose accounts come in two pages (the second asked with `?cursor=`).
   */
  const thirdParty = (() => {
    const requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders }> = [];
    const server = http.createServer((req, res) => {
      requests.push({ method: req.method as string, url: req.url as string, headers: req.headers });
      req.resume();
      req.on('end', () => {
        const url = new URL(req.url as string, 'http://127.0.0.1');
        const answer = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        if (url.pathname === '/hook') return answer({});
        if (url.pathname === '/accounts')
          return answer(
            url.searchParams.get('cursor') === 'p2'
              ? { data: [{ reference: 'ext-1', type: 'EXTERNAL' }] }
              : { data: [{ reference: 'acc-1' }], next: 'p2' },
          );
        return answer({ data: [] });
      });
    });
    return { server, requests, url: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  })();

  beforeAll(async () => {
    await new Promise<void>((resolve) => thirdParty.server.listen(0, '127.0.0.1', resolve));
    receiver.value = await startOtlpReceiver();
    await admin.raw(`CREATE DATABASE ${database}`);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: databaseUrl(),
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: `otel-${randomBytes(4).toString('hex')}`,
      LOG_LEVEL: 'info',
      NODE_ENV: 'test',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.value.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      // The third party of the outbound calls' case listens on 127.0.0.1.
      WEBHOOKS_ALLOWED_CIDRS: '127.0.0.0/8',
    };
    platform = await startPlatform({
      dataDir: testTempDir('otel-'),
      env,
      apiPort: await freePort(),
      postgresPort: 0,
      temporalPort: 0,
      temporalSqlite: false,
      persistentPostgres: false,
      log: (part, line) => lines.push(`${part}|${line}`),
    });
    const issued = await fetch(`${platform.apiUrl}/api/auth/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${platform.credentials.clientId}:${platform.credentials.clientSecret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    token = ((await issued.json()) as { access_token: string }).access_token;
  }, 180_000);

  afterAll(async () => {
    await platform?.stop();
    thirdParty.server.closeAllConnections();
    await new Promise((resolve) => thirdParty.server.close(resolve));
    await receiver.value?.close();
    await admin.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.destroy();
  }, 60_000);

  const send = async (method: string, path: string, body: unknown, traceparent: string) => {
    const res = await fetch(`${platform.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', traceparent },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, requestId: res.headers.get('x-request-id') as string, body: await res.text() };
  };
  const newTrace = () => ({ traceId: randomBytes(16).toString('hex'), parent: randomBytes(8).toString('hex') });
  const traceparent = (t: { traceId: string; parent: string }) => `00-${t.traceId}-${t.parent}-01`;
  const spansOf = (traceId: string) => (receiver.value as { spans: ReceivedSpan[] }).spans.filter((s) => s.traceId === traceId);
  /** Whether `span` descends from `ancestor` through parent ids within its trace. */
  const descendsFrom = (span: ReceivedSpan, ancestor: ReceivedSpan, trace: ReceivedSpan[]): boolean => {
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    for (let at: ReceivedSpan | undefined = span; at; at = byId.get(at.parentSpanId)) if (at.parentSpanId === ancestor.spanId) return true;
    return false;
  };

  it("makes one trace of a write: the caller's traceparent, the server span, the group commit and its SQL; the log line carries the trace id", async () => {
    const ledger = `otel-${randomBytes(4).toString('hex')}`;
    const t = newTrace();
    expect((await send('POST', `/api/ledger/v2/${ledger}`, undefined, traceparent(newTrace()))).status).toBe(204);
    const created = await send(
      'POST',
      `/api/ledger/v2/${ledger}/transactions`,
      { postings: [{ source: 'world', destination: 'users:1', amount: 100, asset: 'USD/2' }] },
      traceparent(t),
    );
    expect(created.status).toBe(200);

    const trace = await pollUntil(
      () => spansOf(t.traceId),
      (spans) => spans.some((s) => s.name === 'ledger.group_commit') && spans.some((s) => s.kind === 2),
      { what: "the write's spans" },
    );
    const server = trace.find((s) => s.kind === 2) as ReceivedSpan; // SERVER
    expect(server).toMatchObject({
      service: 'financial-platform-api',
      name: 'POST /api/ledger/v2/:ledger/transactions',
      parentSpanId: t.parent,
      attributes: expect.objectContaining({
        'http.route': '/api/ledger/v2/:ledger/transactions',
        'http.response.status_code': 200,
        'request.id': created.requestId,
      }),
    });
    const commit = trace.find((s) => s.name === 'ledger.group_commit') as ReceivedSpan;
    // A batch of one is part of its writer's trace.
    expect(commit.parentSpanId).toBe(server.spanId);
    expect(commit.attributes).toMatchObject({ 'ledger.name': ledger, 'ledger.batch_size': 1 });
    const sql = await pollUntil(
      () => spansOf(t.traceId).filter((s) => s.attributes['db.system'] === 'postgresql'),
      (spans) => spans.some((s) => s.parentSpanId === commit.spanId),
      { what: "the commit's SQL spans" },
    );
    for (const span of sql) expect(descendsFrom(span, server, spansOf(t.traceId))).toBe(true);
    expect(sql.map((s) => String(s.attributes['db.statement'])).join('\n')).toMatch(/insert into/i);

    const logged = lines.filter((l) => l.startsWith('api|') && l.includes(created.requestId)).map((l) => JSON.parse(l.slice(4)));
    expect(logged.length).toBeGreaterThan(0);
    for (const line of logged) expect(line).toMatchObject({ requestId: created.requestId, traceId: t.traceId });
  });

  it("carries a request's trace into the Temporal workflow it starts, each activity, and the activities' SQL", async () => {
    const ledger = `otel-${randomBytes(4).toString('hex')}`;
    expect((await send('POST', `/api/ledger/v2/${ledger}`, undefined, traceparent(newTrace()))).status).toBe(204);
    const stage = {
      send: {
        source: { account: { id: 'world', ledger } },
        destination: { account: { id: 'users:1', ledger } },
        amount: { asset: 'USD/2', amount: '250' },
      },
    };
    const workflow = await send('POST', '/api/orchestration/v2/workflows', { name: 'otel', stages: [stage] }, traceparent(newTrace()));
    expect(workflow.status).toBe(201);
    const t = newTrace();
    const run = await send('POST', `/api/orchestration/v2/workflows/${JSON.parse(workflow.body).data.id}/instances?wait=true`, {}, traceparent(t));
    expect(run.status).toBe(200);

    const trace = await pollUntil(
      () => spansOf(t.traceId),
      (spans) =>
        spans.some((s) => s.kind === 2) &&
        spans.some((s) => s.name.startsWith('RunWorkflow:')) &&
        spans.some(
          (s) => s.name.startsWith('RunActivity:') && spans.some((q) => q.parentSpanId === s.spanId && q.attributes['db.system'] === 'postgresql'),
        ),
      { what: "the workflow's spans" },
    );
    const server = trace.find((s) => s.kind === 2 && s.service === 'financial-platform-api') as ReceivedSpan;
    expect(server.parentSpanId).toBe(t.parent);
    expect(server.attributes['request.id']).toBe(run.requestId);
    const start = trace.find((s) => s.name.startsWith('StartWorkflow:')) as ReceivedSpan;
    expect(start.service).toBe('financial-platform-api');
    expect(start.parentSpanId).toBe(server.spanId);
    const runs = trace.filter((s) => s.name.startsWith('RunWorkflow:'));
    const activities = trace.filter((s) => s.name.startsWith('RunActivity:'));
    for (const span of [...runs, ...activities]) {
      expect(span.service).toBe('financial-platform-worker');
      expect(descendsFrom(span, start, trace)).toBe(true);
    }
    const activitySql = trace.filter((s) => s.attributes['db.system'] === 'postgresql' && activities.some((a) => descendsFrom(s, a, trace)));
    expect(activitySql.length).toBeGreaterThan(0);
  });

  it('links the traces of the writes a group commit serves together', async () => {
    const ledger = `otel-${randomBytes(4).toString('hex')}`;
    expect((await send('POST', `/api/ledger/v2/${ledger}`, undefined, traceparent(newTrace()))).status).toBe(204);
    // Concurrent writes to one ledger queue behind the batch in flight and commit together; rounds until one did.
    const shared = await pollUntil(
      async () => {
        const traces = Array.from({ length: 12 }, newTrace);
        const answers = await Promise.all(
          traces.map((t, i) =>
            send(
              'POST',
              `/api/ledger/v2/${ledger}/transactions`,
              { postings: [{ source: 'world', destination: `users:${i}`, amount: 1, asset: 'USD/2' }] },
              traceparent(t),
            ),
          ),
        );
        expect(answers.map((a) => a.status)).toEqual(traces.map(() => 200));
        const ids = new Set(traces.map((t) => t.traceId));
        const batches = () => receiver.value!.spans.filter((s) => s.name === 'ledger.group_commit' && s.attributes['ledger.name'] === ledger);
        // Every write's commit has been received: a batch of one in its own trace, or a batch of several linking it.
        await pollUntil(
          () => [...ids].filter((id) => !batches().some((b) => b.traceId === id || b.links.some((l) => l.traceId === id))).length,
          (uncovered) => uncovered === 0,
          { what: 'the commit of every write of the round' },
        );
        return batches().filter((b) => b.links.some((l) => ids.has(l.traceId)));
      },
      (several) => several.length > 0,
      { what: 'a batch of several writes', timeoutMs: 120_000, intervalMs: 0 },
    );
    const serverSpans = receiver.value!.spans.filter((s) => s.kind === 2);
    for (const batch of shared) {
      expect(batch.parentSpanId).toBe('');
      expect(batch.links).toHaveLength(batch.attributes['ledger.batch_size'] as number);
      expect(batch.links.length).toBeGreaterThan(1);
      // Each link is a writer's server span, whose trace is the caller's.
      for (const link of batch.links) expect(serverSpans.some((s) => s.traceId === link.traceId && s.spanId === link.spanId)).toBe(true);
    }
  }, 180_000);

  it('traces a webhook delivery and a provider call as client spans of their activity, without query strings, and sends no traceparent to the third party', async () => {
    // Client spans (kind 3) of HTTP calls; the SQL spans are client spans too.
    const isHttpCall = (s: ReceivedSpan) => s.kind === 3 && s.attributes['http.request.method'] !== undefined;
    /** The activity's span and the calls made directly under `parentName` (the activity's span, or a span of it). */
    const activityWithCalls = (traceId: string, activity: string, calls: number, parentName = `RunActivity:${activity}`) => {
      const trace = spansOf(traceId);
      const run = trace.find((s) => s.name === `RunActivity:${activity}`);
      const parent = trace.find((s) => s.name === parentName && (s === run || s.parentSpanId === run?.spanId));
      const made = parent ? trace.filter((s) => isHttpCall(s) && s.parentSpanId === parent.spanId) : [];
      return run && parent && made.length >= calls ? { trace, run, parent, made } : undefined;
    };
    const base = thirdParty.url();

    // A webhook delivery: the test send of a config (op 16) runs as the worker's sendTestWebhook activity.
    const config = await send(
      'POST',
      '/api/webhooks/configs',
      { endpoint: `${base}/hook?token=hook-secret`, eventTypes: ['otel.none'] },
      traceparent(newTrace()),
    );
    expect(config.status).toBe(200);
    const hook = newTrace();
    const tested = await send('GET', `/api/webhooks/configs/${JSON.parse(config.body).data.id}/test`, undefined, traceparent(hook));
    expect(tested.status).toBe(200);
    expect(JSON.parse(tested.body).data).toMatchObject({ status: 'success', statusCode: 200 });
    const delivery = await pollUntil(() => activityWithCalls(hook.traceId, 'sendTestWebhook', 1), isDefined, { what: "the test delivery's spans" });
    const hookServer = delivery.trace.find((s) => s.kind === 2 && s.service === 'financial-platform-api') as ReceivedSpan;
    expect(hookServer.parentSpanId).toBe(hook.parent);
    expect(descendsFrom(delivery.run, hookServer, delivery.trace)).toBe(true);
    expect(delivery.made).toEqual([
      expect.objectContaining({
        name: 'POST',
        service: 'financial-platform-worker',
        attributes: expect.objectContaining({
          'http.request.method': 'POST',
          'http.response.status_code': 200,
          'server.address': '127.0.0.1',
          'url.path': '/hook',
          'url.full': `${base}/hook`,
        }),
      }),
    ]);

    // A provider call: installing a generic connector runs its first fetch (connectorInstall) in the request's trace.
    const install = newTrace();
    const installed = await send(
      'POST',
      '/api/payments/v3/connectors/install/generic',
      { name: `otel-${randomBytes(4).toString('hex')}`, endpoint: base, pollingPeriod: '24h', timeout: '5s' },
      traceparent(install),
    );
    expect(installed.status).toBe(202);
    const connectorID = JSON.parse(installed.body).data as string;
    try {
      // Two pages: GET /accounts, then GET /accounts?cursor=p2; both under the plugin operation's span
      // (`payments.fetchAccounts`, activities/payments/plugins/registry.ts), a child of the activity's.
      const fetch = await pollUntil(() => activityWithCalls(install.traceId, 'paymentsFetchAccounts', 2, 'payments.fetchAccounts'), isDefined, {
        what: "the first fetch's spans",
      });
      expect(fetch.parent.parentSpanId).toBe(fetch.run.spanId);
      const installServer = fetch.trace.find((s) => s.kind === 2 && s.service === 'financial-platform-api') as ReceivedSpan;
      expect(installServer.parentSpanId).toBe(install.parent);
      expect(descendsFrom(fetch.run, installServer, fetch.trace)).toBe(true);
      expect(fetch.made).toHaveLength(2);
      for (const span of fetch.made) {
        expect(span).toMatchObject({
          name: 'GET',
          service: 'financial-platform-worker',
          attributes: expect.objectContaining({
            'http.request.method': 'GET',
            'http.response.status_code': 200,
            'url.path': '/accounts',
            'url.full': `${base}/accounts`,
          }),
        });
      }
      expect(thirdParty.requests.filter((r) => r.method === 'GET' && r.url.startsWith('/accounts')).map((r) => r.url)).toEqual(
        expect.arrayContaining(['/accounts', '/accounts?cursor=p2']),
      );
    } finally {
      expect((await send('DELETE', `/api/payments/v3/connectors/${connectorID}`, undefined, traceparent(newTrace()))).status).toBeLessThan(300);
    }

    // The query strings did reach the third party, and never a span; no trace context was sent to it.
    expect(thirdParty.requests.map((r) => r.url)).toEqual(expect.arrayContaining(['/hook?token=hook-secret', '/accounts?cursor=p2']));
    const clientSpans = receiver.value!.spans.filter(isHttpCall);
    expect(clientSpans.length).toBeGreaterThanOrEqual(3);
    for (const span of clientSpans) expect(JSON.stringify(span)).not.toMatch(/hook-secret|cursor/);
    for (const request of thirdParty.requests) {
      expect(request.headers).not.toHaveProperty('traceparent');
      expect(request.headers).not.toHaveProperty('tracestate');
      expect(request.headers).not.toHaveProperty('baggage');
    }
  }, 120_000);

  it("records the trace id of a traced request in its audit entry and the entry's event", async () => {
    const ledger = `otel-${randomBytes(4).toString('hex')}`;
    const t = newTrace();
    const created = await send('POST', `/api/ledger/v2/${ledger}`, undefined, traceparent(t));
    expect(created.status).toBe(204);
    const server = await pollUntil(
      () => spansOf(t.traceId).find((s) => s.kind === 2 && s.attributes['request.id'] === created.requestId),
      isDefined,
      { what: "the request's server span" },
    );
    const listed = await pollUntil(
      async () => {
        const res = await send(
          'GET',
          `/api/auth/audit/entries?route=${encodeURIComponent('/api/ledger/v2/{ledger}')}&pageSize=100`,
          undefined,
          traceparent(newTrace()),
        );
        return res.status === 200
          ? (JSON.parse(res.body).cursor.data as Array<Record<string, unknown>>).find((e) => e.requestId === created.requestId)
          : undefined;
      },
      isDefined,
      { what: "the request's audit entry" },
    );
    expect(listed).toMatchObject({ method: 'POST', targets: { ledger }, status: 204, traceId: server.traceId });
    expect(server.traceId).toBe(t.traceId);

    const db = createDb(databaseUrl(), { poolMax: 1 });
    try {
      const events = await db('events_outbox')
        .where({ app: 'auth', type: 'AUDIT_ENTRY_RECORDED' })
        .whereRaw('payload LIKE ?', [`%${created.requestId}%`]);
      expect(events).toHaveLength(1);
      expect(JSON.parse(events[0].payload)).toEqual(listed);
    } finally {
      await db.destroy();
    }
  });
});
