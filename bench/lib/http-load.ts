import autocannon from 'autocannon';
import type { Measurement } from './stats';

/**
 * HTTP load with autocannon against 127.0.0.1 only, bounded by a request count. Latency percentiles are autocannon's
 * (millisecond resolution).
 */
export async function httpLoad(options: {
  scenario: string;
  url: string;
  connections: number;
  amount: number;
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: string;
  /** One request per call, for bodies that must differ (e.g. unique references). */
  requestBody?: (i: number) => string;
}): Promise<Measurement> {
  const url = new URL(options.url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) throw new Error(`refusing to load ${url.hostname}: benchmarks only target this machine`);
  let counter = 0;
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    amount: options.amount,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    ...(options.requestBody
      ? { requests: [{ setupRequest: (req: any) => ({ ...req, body: options.requestBody!(counter++) }) }] }
      : {}),
  });
  const errors = result.errors + result.timeouts + result.non2xx;
  return {
    scenario: options.scenario,
    unit: 'req/s',
    throughput: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    operations: result.requests.total,
    errors,
  };
}
