import autocannon from 'autocannon';
import { rememberSamples, type Measurement } from './stats';

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
  /** One request per call, for bodies that must differ (e.g. unique references or random accounts). */
  requestBody?: (i: number) => string;
  /** One path (with query) per call, for reads spread over many ids. */
  requestPath?: (i: number) => string;
  baseline?: string;
  notes?: string;
}): Promise<Measurement> {
  const url = new URL(options.url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) throw new Error(`refusing to load ${url.hostname}: benchmarks only target this machine`);
  let counter = 0;
  const perRequest = options.requestBody || options.requestPath;
  const started = performance.now();
  let lastResponse = started;
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
    amount: options.amount,
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
      lastResponse = performance.now();
      latencies.push(responseTime);
    });
  });
  const errors = result.errors + result.timeouts + result.non2xx;
  const measurement: Measurement = {
    scenario: options.scenario,
    unit: 'req/s',
    // Completed requests from the start to the last response: autocannon only notices the end of a bounded run at its
    // next one-second tick, so its own duration (and per-second average) undercounts short runs.
    throughput: result.requests.total / ((lastResponse - started) / 1000 || 1),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    operations: result.requests.total,
    errors,
    ...(options.baseline ? { baseline: options.baseline } : {}),
    ...(options.notes ? { notes: options.notes } : {}),
  };
  rememberSamples(measurement, latencies.sort((a, b) => a - b), (lastResponse - started) / 1000 || 1);
  return measurement;
}
