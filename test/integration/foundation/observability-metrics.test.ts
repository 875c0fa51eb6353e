import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createDb } from '../../../db/knex';
import { emitEvents } from '../../../db/outbox';
import { api, apiUrl } from '../../support/http';
import { newLedger, posting, postTransaction } from '../../support/ledger';
import { pollUntil } from '../../support/eventually';
import { dashboardMetricNames } from '../../support/dashboard';
import { installSimulated, simulatedDirectory } from '../../support/payments';
import { sampleValue, scrape } from '../../support/prometheus';
import { startReceiver } from '../../support/webhook-receiver';

const workerUrl = () => process.env.TEST_WORKER_METRICS_URL as string;

describe('worker metrics and logs of events, webhooks, the log hasher and connectors', () => {
  const db = createDb(process.env.TEST_DATABASE_URL as string, { poolMax: 2 });
  afterAll(() => db.destroy());

  it('counts event batches by size and logs each failed webhook attempt as one JSON line with its endpoint, status and next retry', async () => {
    const receiver = await startReceiver(() => ({ status: 500 }));
    const type = `OBS_${randomUUID().slice(0, 8).toUpperCase()}`;
    const config = (
      await api('POST', '/api/webhooks/configs', {
        body: { endpoint: `${receiver.url}?token=secret-in-query`, eventTypes: [`ledger.${type.toLowerCase()}`] },
      })
    ).body.data;
    try {
      const before = (await scrape(workerUrl())).text;
      const [eventId] = await db.transaction((trx) => emitEvents(trx, [{ app: 'ledger', type, payload: { n: 1 } }]));
      await pollUntil(
        () => receiver.received.length,
        (n) => n >= 2,
        { what: 'two attempts' },
      );
      const delivery = await pollUntil(
        async () => (await api('GET', `/api/webhooks/deliveries?eventID=${eventId}`)).body.cursor.data[0],
        (d) => d !== undefined,
        { what: 'the delivery' },
      );
      // Deleting the config cancels the delivery: its attempts stop, and the lines of those recorded can be counted.
      expect((await api('DELETE', `/api/webhooks/configs/${config.id}`)).status).toBe(200);
      const attempts = await pollUntil(
        async () => (await api('GET', `/api/webhooks/deliveries/${delivery.id}/attempts`)).body.cursor.data as unknown[],
        (list) => list.length >= 2,
        { what: 'the recorded attempts' },
      );
      const logFile = path.join(process.env.TEST_PLATFORM_DATA_DIR as string, 'platform.log');
      const linesOf = () =>
        fs
          .readFileSync(logFile, 'utf8')
          .split('\n')
          .filter((l) => l.includes(delivery.id));
      const lines = await pollUntil(linesOf, (l) => l.length >= attempts.length, { what: 'a line per failed attempt' });
      // One line per attempt (none split over several), each a JSON object of its own.
      expect(lines).toHaveLength(attempts.length);
      for (const line of lines) {
        const entry = JSON.parse(line.slice(line.indexOf('|') + 1));
        expect(entry).toMatchObject({
          level: 40,
          msg: 'webhooks: delivery attempt failed; retried',
          deliveryId: delivery.id,
          configId: config.id,
          endpoint: receiver.url,
          statusCode: 500,
        });
        expect(entry.nextRetryAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
        expect(line).not.toContain('secret-in-query');
      }

      const after = (await scrape(workerUrl())).text;
      expect(sampleValue(after, 'events_batch_size_count') - sampleValue(before, 'events_batch_size_count')).toBeGreaterThanOrEqual(1);
      expect(sampleValue(after, 'events_batch_size_sum') - sampleValue(before, 'events_batch_size_sum')).toBeGreaterThanOrEqual(1);
      expect(
        sampleValue(after, 'webhook_delivery_attempts_total', { outcome: 'retry' }) -
          sampleValue(before, 'webhook_delivery_attempts_total', { outcome: 'retry' }),
      ).toBeGreaterThanOrEqual(2);
      // Per endpoint: this config's own series counts its failed attempts, and its latency histogram as many.
      const endpoint = { config_id: config.id, outcome: 'retry' };
      expect(sampleValue(after, 'webhook_delivery_attempts_total', endpoint)).toBeGreaterThanOrEqual(2);
      expect(sampleValue(after, 'webhook_delivery_attempt_duration_seconds_count', endpoint)).toBe(
        sampleValue(after, 'webhook_delivery_attempts_total', endpoint),
      );
    } finally {
      await receiver.close();
    }
  }, 90_000);

  it("reports the log hasher's lag, which returns to zero once a write's logs are hashed", async () => {
    const ledger = await newLedger('obs-hash');
    expect((await postTransaction(ledger, { postings: [posting('world', 'users:1', 1)] })).status).toBe(200);
    const settled = await pollUntil(
      () => scrape(workerUrl()),
      (s) => /^ledger_log_hash_lag_logs 0$/m.test(s.text),
      { what: 'every log hashed' },
    );
    expect(settled.text).toContain('# TYPE ledger_log_hash_lag_logs gauge');
  });

  it('counts and times connector calls by provider, operation and outcome', async () => {
    const before = (await scrape(workerUrl())).text;
    const connectorID = await installSimulated(simulatedDirectory({ 'accounts.json': [{ reference: 'acc-obs', name: 'obs' }] }));
    try {
      const labels = { connector: 'simulated', operation: 'fetchAccounts', outcome: 'success' };
      const after = await pollUntil(
        async () => (await scrape(workerUrl())).text,
        (text) => sampleValue(text, 'payments_connector_calls_total', labels) > sampleValue(before, 'payments_connector_calls_total', labels),
        { what: 'a counted fetchAccounts call' },
      );
      expect(sampleValue(after, 'payments_connector_call_duration_seconds_count', labels)).toBeGreaterThan(
        sampleValue(before, 'payments_connector_call_duration_seconds_count', labels),
      );
      // Bounded labels: the connector id is not one.
      expect(after).not.toContain(connectorID);
    } finally {
      await api('DELETE', `/api/payments/v3/connectors/${connectorID}`);
    }
  });

  it('exports every metric the shipped Grafana dashboard queries', async () => {
    const texts = await Promise.all(
      [`${apiUrl()}/metrics`, workerUrl(), process.env.TEST_TEMPORAL_METRICS_URL as string].map(async (url) => (await scrape(url)).text),
    );
    const families = new Set(texts.flatMap((text) => [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1])));
    const used = dashboardMetricNames();
    expect(used.length).toBeGreaterThan(10);
    expect(used.filter((name) => !families.has(name))).toEqual([]);
  });
});
