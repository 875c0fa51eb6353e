import autocannon from 'autocannon';
import { localUrl } from './http-client';
import { markMeasuredEnd, markMeasuredStart } from './cpu';
import { percentile, rememberSamples, type Measurement } from './stats';

/**
 * HTTP load with autocannon against 127.0.0.1 only, bounded by a request count. The first `warmup` responses (default:
 * two per connection) are not measured, as measureLoop's warm-up is not: every connection opens and sends its first
 * request at the same instant, and in a row of 1,500 requests at 32 clients that one burst alone was the p99.
 * Percentiles are over each measured response's own latency (autocannon's, which counts from the request's write).
 */
export async function httpLoad(options: {
  scenario: string;
  url: string;
  connections: number;
  amount: number;
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: string;
  /** One request per call, for bodies that must differ (e.g. unique references or random accounts). */
  requestBody?: (i: number) => string;
  /** One path (with query) per call, for reads spread over many ids. */
  requestPath?: (i: number) => string;
  baseline?: string;
  notes?: string;
  warmup?: number;
}): Promise<Measurement> {
  localUrl(options.url);
  let counter = 0;
  const perRequest = options.requestBody || options.requestPath;
  const warmup = options.warmup ?? 2 * options.connections;
  let started = performance.now();
  let lastResponse = started;
  let responses = 0;
  const setupRequest = (req: any) => {
    const i = counter++;
    return {
      ...req,
      ...(options.requestBody ? { body: options.requestBody(i) } : {}),
      ...(options.requestPath ? { path: options.requestPath(i) } : {}),
    };
  };
  const config: autocannon.Options = {
    url: options.url,
    connections: options.connections,
    amount: options.amount + warmup,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    ...(perRequest ? { requests: [{ setupRequest }] } : {}),
  };
  // Every response's own latency, so rounds of interleaved runs can be combined into one set of percentiles.
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(config, (error, done) => (error ? reject(error) : resolve(done)));
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
      responses += 1;
      if (responses <= warmup) {
        if (responses === warmup) {
          markMeasuredStart();
          started = performance.now();
        }
        return;
      }
      lastResponse = performance.now();
      latencies.push(responseTime);
      if (responses === options.amount + warmup) markMeasuredEnd();
    });
  });
  const errors = result.errors + result.timeouts + result.non2xx;
  const sorted = latencies.sort((a, b) => a - b);
  const measurement: Measurement = {
    scenario: options.scenario,
    unit: 'req/s',
    // Measured requests from the end of the warm-up to the last response: autocannon only notices the end of a run at its
    // next one-second tick, so its own duration (and per-second average) undercounts short runs.
    throughput: latencies.length / ((lastResponse - started) / 1000 || 1),
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    operations: latencies.length,
    errors,
    ...(options.baseline ? { baseline: options.baseline } : {}),
    ...(options.notes ? { notes: options.notes } : {}),
  };
  rememberSamples(measurement, sorted, (lastResponse - started) / 1000 || 1);
  return measurement;
}
