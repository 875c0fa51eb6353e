import { api, apiUrl } from '../../support/http';
import { newLedger, posting, postTransaction } from '../../support/ledger';
import { adminCredentials, oauthPost } from '../../support/oauth';
import { pollUntil } from '../../support/eventually';
import { sampleValue, scrape } from '../../support/prometheus';

const TRANSACTIONS_ROUTE = '/api/ledger/v2/:ledger/transactions';

describe('Prometheus metrics', () => {
  it("serves the API's metrics without a token, moved by exactly the traffic sent, labelled by route template", async () => {
    const ledger = await newLedger('metrics');
    const before = await scrape(`${apiUrl()}/metrics`);
    expect(before.status).toBe(200);
    expect(before.contentType).toMatch(/^text\/plain; version=0\.0\.4/);

    // Sequential writes: each commits alone, so five batches of one.
    const writes = 5;
    const statuses = new Set<number>();
    for (let i = 0; i < writes; i += 1) statuses.add((await postTransaction(ledger, { postings: [posting('world', `users:${i}`, 100)] })).status);
    expect([...statuses]).toEqual([200]);
    const missing = await api('GET', `/api/ledger/v2/${ledger}/transactions/999999`);
    expect(missing.status).toBe(404);
    const issued = await oauthPost('token', { grant_type: 'client_credentials' }, adminCredentials());
    expect(issued.status).toBe(200);
    const refused = await oauthPost('token', { grant_type: 'client_credentials' }, [adminCredentials()[0], 'not-the-secret']);
    expect(refused.status).toBe(401);
    const unrouted = await api('GET', `/api/ledger/v2/${ledger}/no-such-thing/at-all`);
    expect(unrouted.status).toBe(404);

    const after = await scrape(`${apiUrl()}/metrics`);
    const delta = (name: string, labels: Record<string, string> = {}) =>
      sampleValue(after.text, name, labels) - sampleValue(before.text, name, labels);
    const created = { method: 'POST', route: TRANSACTIONS_ROUTE, status: '200' };
    expect(delta('http_requests_total', created)).toBe(writes);
    expect(delta('http_request_duration_seconds_count', created)).toBe(writes);
    expect(delta('http_request_duration_seconds_bucket', { ...created, le: '+Inf' })).toBe(writes);
    expect(delta('http_requests_total', { method: 'GET', route: `${TRANSACTIONS_ROUTE}/:id`, status: '404' })).toBe(1);
    expect(delta('http_requests_total', { method: 'POST', route: '/api/auth/oauth/token', status: '200' })).toBe(1);
    expect(delta('http_requests_total', { method: 'POST', route: '/api/auth/oauth/token', status: '401' })).toBe(1);
    expect(delta('http_requests_total', { method: 'GET', route: '(unmatched)', status: '404' })).toBe(1);
    // Bounded labels: no request's raw path (its ledger name) is a label value.
    expect(after.text).not.toContain(ledger);

    expect(delta('ledger_group_commit_batch_size_sum', { outcome: 'committed' })).toBe(writes);
    expect(delta('ledger_group_commit_batch_size_count', { outcome: 'committed' })).toBe(writes);
    expect(delta('ledger_group_commit_duration_seconds_count', { outcome: 'committed' })).toBe(writes);
    expect(delta('ledger_group_commit_batch_size_count', { outcome: 'failed' })).toBe(0);

    expect(delta('auth_tokens_issued_total', { grant_type: 'client_credentials' })).toBe(1);
    expect(delta('auth_token_refusals_total', { error: 'invalid_client' })).toBe(1);

    // Every query waited for a connection, and the pool reports its size.
    expect(delta('db_pool_acquire_wait_seconds_count', { pool: 'api' })).toBeGreaterThanOrEqual(writes);
    expect(sampleValue(after.text, 'db_pool_connections', { pool: 'api', state: 'max' })).toBeGreaterThan(0);
    expect(sampleValue(after.text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
  });

  it("serves the worker's metrics and the Temporal SDK's on their own ports", async () => {
    const workerUrl = process.env.TEST_WORKER_METRICS_URL as string;
    const temporalUrl = process.env.TEST_TEMPORAL_METRICS_URL as string;
    expect(workerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const ledger = await newLedger('metrics-outbox');
    expect((await postTransaction(ledger, { postings: [posting('world', 'users:outbox', 1)] })).status).toBe(200);

    // The write's events leave the outbox: the backlog the worker reports drains to zero.
    const drained = await pollUntil(
      () => scrape(workerUrl),
      (s) => s.status === 200 && /^events_outbox_backlog 0$/m.test(s.text),
      { what: 'an empty outbox' },
    );
    expect(sampleValue(drained.text, 'events_outbox_oldest_age_seconds')).toBe(0);
    expect(sampleValue(drained.text, 'db_pool_connections', { pool: 'worker', state: 'max' })).toBeGreaterThan(0);
    expect((await scrape(workerUrl.replace(/\/metrics$/, '/other'))).status).toBe(404);

    const temporal = await pollUntil(
      () => scrape(temporalUrl),
      (s) => s.status === 200 && /^temporal_\w+/m.test(s.text),
      { what: 'Temporal SDK metrics' },
    );
    expect(temporal.text).toMatch(/^temporal_request_total\{/m);
    expect(temporal.text).toMatch(/task_queue="[^"]+"/);
  });
});
