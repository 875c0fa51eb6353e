import http from 'node:http';
import type { Knex } from 'knex';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's Prometheus metrics (Prometheus naming: `_total` counters, `_seconds` durations, base units). One
 * registry per process: the API serves it at `GET /metrics`, the worker on its own port (WORKER_METRICS_PORT). Every
 * label has a bounded set of values (route templates, not paths; outcomes, not error messages), so the number of
 * series does not grow with traffic. docs/operations.md (Observability) describes each metric.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** Seconds; from a cached read (~0.1 ms) to a slow write under load. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const metrics = {
  httpRequests: new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  }),
  httpDuration: new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request reaching the API to its answer being written, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  }),
  groupCommitBatchSize: new Histogram({
    name: 'ledger_group_commit_batch_size',
    help: 'Writes committed together in one ledger group-commit transaction',
    labelNames: ['outcome'] as const,
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [registry],
  }),
  groupCommitDuration: new Histogram({
    name: 'ledger_group_commit_duration_seconds',
    help: 'Duration of one ledger group-commit transaction, BEGIN to COMMIT',
    labelNames: ['outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  }),
  webhookAttempts: new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts, by endpoint (its webhook config id) and outcome (success, retry, failed)',
    labelNames: ['config_id', 'outcome'] as const,
    registers: [registry],
  }),
  webhookAttemptDuration: new Histogram({
    name: 'webhook_delivery_attempt_duration_seconds',
    help: 'Duration of one webhook delivery attempt (the HTTP request), by endpoint (its webhook config id) and outcome',
    labelNames: ['config_id', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  }),
  webhookAttemptNumber: new Histogram({
    name: 'webhook_delivery_attempt_number',
    help: 'The attempt number of each finished delivery (1 = first try), by endpoint (its webhook config id) and final outcome',
    labelNames: ['config_id', 'outcome'] as const,
    buckets: [1, 2, 3, 5, 8, 13, 21, 34],
    registers: [registry],
  }),
  connectorCalls: new Counter({
    name: 'payments_connector_calls_total',
    help: 'Calls to a payment provider through its connector plugin, by provider, operation and outcome (success, error)',
    labelNames: ['connector', 'operation', 'outcome'] as const,
    registers: [registry],
  }),
  connectorCallDuration: new Histogram({
    name: 'payments_connector_call_duration_seconds',
    help: 'Duration of one connector plugin call (its provider requests included), by provider, operation and outcome',
    labelNames: ['connector', 'operation', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  }),
  eventBatchSize: new Histogram({
    name: 'events_batch_size',
    help: 'Events handed to one processEventBatch workflow by the outbox dispatcher',
    buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000],
    registers: [registry],
  }),
  tokensIssued: new Counter({
    name: 'auth_tokens_issued_total',
    help: 'Access tokens issued by the embedded OAuth issuer, by grant type',
    labelNames: ['grant_type'] as const,
    registers: [registry],
  }),
  tokenRefusals: new Counter({
    name: 'auth_token_refusals_total',
    help: 'Token requests the embedded OAuth issuer refused, by OAuth error code',
    labelNames: ['error'] as const,
    registers: [registry],
  }),
  poolAcquireWait: new Histogram({
    name: 'db_pool_acquire_wait_seconds',
    help: 'Time a query waited for a PostgreSQL connection from the pool',
    labelNames: ['pool'] as const,
    buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [registry],
  }),
  poolAcquireFailures: new Counter({
    name: 'db_pool_acquire_failures_total',
    help: 'Connection requests that failed (DATABASE_ACQUIRE_TIMEOUT_MS passed, or the connection could not be made)',
    labelNames: ['pool'] as const,
    registers: [registry],
  }),
};

/** The part of tarn's pool (knex's pool) that the pool metrics read: its public counters and events. */
interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
  max: number;
  on(event: 'acquireRequest' | 'acquireSuccess' | 'acquireFail', listener: (eventId: number) => void): void;
}

const pools = new Map<string, TarnPool>();
new Gauge({
  name: 'db_pool_connections',
  help: 'PostgreSQL pool connections by state: used, free, pending (queries waiting for one), creating, max',
  labelNames: ['pool', 'state'] as const,
  registers: [registry],
  collect() {
    for (const [pool, p] of pools) {
      this.set({ pool, state: 'used' }, p.numUsed());
      this.set({ pool, state: 'free' }, p.numFree());
      this.set({ pool, state: 'pending' }, p.numPendingAcquires());
      this.set({ pool, state: 'creating' }, p.numPendingCreates());
      this.set({ pool, state: 'max' }, p.max);
    }
  },
});

/** Reports a knex instance's pool (usage gauges, acquire waits and failures) under `name`. */
export function observePool(db: Knex, name: string): void {
  const pool = (db.client as { pool?: TarnPool }).pool;
  if (!pool || pools.has(name)) return;
  pools.set(name, pool);
  const started = new Map<number, bigint>();
  pool.on('acquireRequest', (id) => started.set(id, process.hrtime.bigint()));
  pool.on('acquireSuccess', (id) => {
    const at = started.get(id);
    started.delete(id);
    if (at !== undefined) metrics.poolAcquireWait.observe({ pool: name }, Number(process.hrtime.bigint() - at) / 1e9);
  });
  pool.on('acquireFail', (id) => {
    started.delete(id);
    metrics.poolAcquireFailures.inc({ pool: name });
  });
}

/** Seconds since `started` (a process.hrtime.bigint()). */
export const secondsSince = (started: bigint): number => Number(process.hrtime.bigint() - started) / 1e9;

/** The text exposition format's content type and the registry's current content, for a `/metrics` answer. */
export async function metricsAnswer(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}

/** A plain HTTP server answering `GET /metrics` (the worker's, which has no other HTTP server). */
export async function serveMetrics(host: string, port: number): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found; metrics are at /metrics\n');
      return;
    }
    metricsAnswer().then(
      ({ contentType, body }) => res.writeHead(200, { 'Content-Type': contentType }).end(body),
      (error) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`could not collect metrics: ${String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
