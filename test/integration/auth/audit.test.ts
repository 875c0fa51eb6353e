import { randomUUID } from 'node:crypto';
import { deleteAuditEntriesBefore, recordAuditEntries } from '../../../areas/auth';
import { createDb, type Db } from '../../../db/knex';
import { api } from '../../support/http';
import { pollUntil } from '../../support/eventually';
import { adminCredentials, clientToken, newClient } from '../../support/oauth';
import { posting } from '../../support/ledger';
import { sampleValue, scrape } from '../../support/prometheus';
import { startReceiver } from '../../support/webhook-receiver';

const entriesOf = async (query: string, token?: string) => api('GET', `/api/auth/audit/entries?${query}`, token === undefined ? {} : { token });

type Entry = Record<string, unknown> & { requestId: string; method: string; targets: Record<string, string> };

/**
 * Polls the list until `ready` holds for its entries (the trail is written in batches just after the answers). A count
 * alone is not enough where other tests' entries match the same filter: they would satisfy it before ours is written.
 */
const waitForEntries = (query: string, ready: (entries: Entry[]) => boolean) =>
  pollUntil(
    () => entriesOf(query),
    (res) => res.status === 200 && ready(res.body.cursor.data),
    { what: `audit entries for ${query}` },
  );
const having = (count: number) => (entries: Entry[]) => entries.length >= count;

describe('audit trail', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL as string, { poolMax: 2 });
  });
  afterAll(() => db.destroy());

  it('records each state-changing request with its client, scopes, route, targets, status and request id, never its body', async () => {
    const secretName = `secret-name-${randomUUID()}`;
    const requestId = `audit-${randomUUID()}`;
    const created = await api('POST', '/api/auth/clients', { body: { name: `audited-${secretName}`, scopes: ['ledger:read'] } });
    expect(created.status).toBe(201);
    const clientId = created.body.data.id as string;
    const secret = await api('POST', `/api/auth/clients/${clientId}/secrets`, { body: { name: secretName }, headers: { 'X-Request-Id': requestId } });
    expect(secret.status).toBe(200);
    const read = await api('GET', `/api/auth/clients/${clientId}`);
    expect(read.status).toBe(200);
    const unauthenticated = await api('DELETE', `/api/auth/clients/${clientId}`, { token: null });
    expect(unauthenticated.status).toBe(401);

    const route = encodeURIComponent('/api/auth/clients/{clientId}/secrets');
    const listed = await waitForEntries(`route=${route}&clientId=${adminCredentials()[0]}&pageSize=100`, (entries) =>
      entries.some((e) => e.requestId === requestId),
    );
    const entry = listed.body.cursor.data.find((e: { requestId: string }) => e.requestId === requestId);
    expect(entry).toEqual({
      id: expect.any(String),
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      clientId: adminCredentials()[0],
      scopes: expect.arrayContaining(['auth:write', 'ledger:write']),
      method: 'POST',
      route: '/api/auth/clients/{clientId}/secrets',
      targets: { clientId },
      status: 200,
      requestId,
      durationMs: expect.any(Number),
    });
    // This platform does not trace: no trace id to record (the traced case: foundation/tracing.test.ts).
    expect(entry).not.toHaveProperty('traceId');
    expect(new Date(entry.at).getTime()).toBeGreaterThan(Date.now() - 120_000);
    // Neither the bodies sent nor the secret answered are in the trail.
    const all = await waitForEntries(`pageSize=1000&startTime=${encodeURIComponent(new Date(Date.now() - 120_000).toISOString())}`, (entries) =>
      entries.some((e) => e.requestId === requestId),
    );
    expect(all.text).not.toContain(secretName);
    expect(all.text).not.toContain(secret.body.data.clear);
    // Reads are not state changes.
    expect(all.body.cursor.data.some((e: { method: string }) => e.method === 'GET')).toBe(false);

    // A refused attempt is recorded too, without a client.
    const refused = await waitForEntries(`route=${encodeURIComponent('/api/auth/clients/{clientId}')}&status=401&pageSize=100`, (entries) =>
      entries.some((e) => e.targets.clientId === clientId),
    );
    const attempt = refused.body.cursor.data.find((e: { targets: { clientId?: string } }) => e.targets.clientId === clientId);
    expect(attempt).toMatchObject({ method: 'DELETE', status: 401, scopes: [], requestId: unauthenticated.headers.get('x-request-id') });
    expect(attempt.clientId).toBeUndefined();

    // Each entry is a platform event (auth.audit_entry_recorded for webhooks), in the outbox with the entry.
    const events = await db('events_outbox')
      .where({ app: 'auth', type: 'AUDIT_ENTRY_RECORDED' })
      .whereRaw('payload LIKE ?', [`%${requestId}%`]);
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].payload)).toEqual(entry);
  });

  it('refuses a token without auth:read', async () => {
    const reader = await newClient(['ledger:write']);
    const token = await clientToken(reader.id, reader.secrets[0].clear);
    const res = await entriesOf('pageSize=1', token);
    expect(res.status).toBe(403);
    expect(res.body.errorCode).toBe('FORBIDDEN');
    expect((await entriesOf('pageSize=1', null as unknown as string)).status).toBe(401);
  });

  it('filters by client, route, status and time, and pages with cursors', async () => {
    const writer = await newClient(['ledger:write']);
    const token = await clientToken(writer.id, writer.secrets[0].clear);
    const ledger = `audit-${randomUUID().slice(0, 8)}`;
    const started = new Date(Date.now() - 1000).toISOString();
    expect((await api('POST', `/api/ledger/v2/${ledger}`, { token })).status).toBe(204);
    for (let i = 0; i < 3; i += 1) {
      expect(
        (await api('POST', `/api/ledger/v2/${ledger}/transactions`, { token, body: { postings: [posting('world', `u:${i}`, 1)] } })).status,
      ).toBe(200);
    }
    const mine = `clientId=${writer.id}`;
    const all = await waitForEntries(`${mine}&pageSize=100`, having(4));
    expect(all.body.cursor.data).toHaveLength(4);
    // Newest first.
    expect(all.body.cursor.data.map((e: { route: string }) => e.route)).toEqual([
      ...Array(3).fill('/api/ledger/v2/{ledger}/transactions'),
      '/api/ledger/v2/{ledger}',
    ]);
    expect(all.body.cursor.data[3].targets).toEqual({ ledger });

    const created = await entriesOf(`${mine}&status=204`);
    expect(created.body.cursor.data.map((e: { method: string; status: number }) => [e.method, e.status])).toEqual([['POST', 204]]);
    const byRoute = await entriesOf(`${mine}&route=${encodeURIComponent('/api/ledger/v2/{ledger}/transactions')}`);
    expect(byRoute.body.cursor.data).toHaveLength(3);
    expect((await entriesOf(`${mine}&startTime=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).body.cursor.data).toEqual([]);
    expect((await entriesOf(`${mine}&endTime=${encodeURIComponent(started)}`)).body.cursor.data).toEqual([]);
    expect((await entriesOf(`${mine}&startTime=${encodeURIComponent(started)}`)).body.cursor.data).toHaveLength(4);

    const first = await entriesOf(`${mine}&pageSize=3`);
    expect(first.body.cursor).toMatchObject({ pageSize: 3, hasMore: true, previous: '' });
    const second = await entriesOf(`cursor=${first.body.cursor.next}`);
    expect(second.body.cursor.data.map((e: { id: string }) => e.id)).toEqual([all.body.cursor.data[3].id]);
    expect(second.body.cursor.hasMore).toBe(false);
    const back = await entriesOf(`cursor=${second.body.cursor.previous}`);
    expect(back.body.cursor.data.map((e: { id: string }) => e.id)).toEqual(first.body.cursor.data.map((e: { id: string }) => e.id));

    const bad = await entriesOf('status=99');
    expect(bad.status).toBe(400);
    expect(bad.body.errorMessage).toMatch(/status/);
    expect((await entriesOf('unknown=1')).status).toBe(400);
  });

  it('streams entries to a webhook subscribed to auth.audit_entry_recorded, the worker counting its attempts', async () => {
    const workerMetrics = process.env.TEST_WORKER_METRICS_URL as string;
    const before = (await scrape(workerMetrics)).text;
    // The first request fails with a retryable status, then the receiver accepts.
    const receiver = await startReceiver((n) => ({ status: n === 1 ? 503 : 200 }));
    const config = await api('POST', '/api/webhooks/configs', { body: { endpoint: receiver.url, eventTypes: ['auth.audit_entry_recorded'] } });
    expect(config.status).toBe(200);
    try {
      const requestId = `streamed-${randomUUID()}`;
      expect(
        (await api('POST', '/api/auth/clients', { body: { name: 'streamed', scopes: [] }, headers: { 'X-Request-Id': requestId } })).status,
      ).toBe(201);
      const delivered = await pollUntil(
        () => receiver.received.filter((r) => r.body.includes(requestId)),
        (requests) => requests.length >= 1,
        { what: 'the audit entry at the webhook' },
      );
      const body = JSON.parse(delivered[0].body);
      expect(body).toMatchObject({
        app: 'auth',
        type: 'auth.audit_entry_recorded',
        payload: { requestId, method: 'POST', route: '/api/auth/clients', status: 201 },
      });
      // Attempts are counted by outcome; the receiver's first answer (503) was a retry.
      const after = await pollUntil(
        async () => (await scrape(workerMetrics)).text,
        (text) =>
          sampleValue(text, 'webhook_delivery_attempts_total', { outcome: 'retry' }) >
          sampleValue(before, 'webhook_delivery_attempts_total', { outcome: 'retry' }),
        { what: 'a retry counted' },
      );
      const delta = (name: string, labels: Record<string, string>) => sampleValue(after, name, labels) - sampleValue(before, name, labels);
      expect(delta('webhook_delivery_attempts_total', { outcome: 'success' })).toBeGreaterThanOrEqual(1);
      expect(delta('webhook_delivery_attempt_duration_seconds_count', { outcome: 'retry' })).toBeGreaterThanOrEqual(1);
      expect(delta('webhook_delivery_attempt_number_count', { outcome: 'success' })).toBeGreaterThanOrEqual(1);
    } finally {
      await api('DELETE', `/api/webhooks/configs/${config.body.data.id}`);
      await receiver.close();
    }
  });

  it('deletes entries past their retention and keeps the others', async () => {
    const old = {
      id: randomUUID(),
      at: new Date(Date.now() - 100 * 86_400_000).toISOString(),
      scopes: [],
      method: 'POST',
      route: '/retention-test',
      targets: {},
      status: 200,
      requestId: 'old',
      durationMs: 1,
    };
    const recent = { ...old, id: randomUUID(), at: new Date().toISOString(), requestId: 'recent' };
    await recordAuditEntries(db, [old, recent]);
    // Re-sent (a retried flush): stored once.
    await recordAuditEntries(db, [old]);
    expect(await db('audit_entries').whereIn('id', [old.id, recent.id]).count<{ count: string }[]>('* as count')).toEqual([{ count: '2' }]);
    const deleted = await deleteAuditEntriesBefore(db, new Date(Date.now() - 90 * 86_400_000), 1);
    expect(deleted).toBeGreaterThanOrEqual(1);
    expect(await db('audit_entries').whereIn('id', [old.id, recent.id]).pluck('id')).toEqual([recent.id]);
  });
});
