import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * Tracing off costs nothing: with no OTLP endpoint (or OTEL_SDK_DISABLED=true) a process that starts tracing, loads the
 * API's middleware and makes its Temporal client interceptors loads no OpenTelemetry SDK, exporter, instrumentation
 * or Temporal interceptor module at all (so no context manager, no driver patch, no exporter). A fresh Node process
 * each, since the SDK registers itself process-wide; the third, with an endpoint, shows the probe sees a started SDK.
 */
const PROBE = `
const { loadConfig } = require('./lib/config');
const tracing = require('./lib/tracing');
tracing.startTracing(loadConfig().tracing, 'probe');
require('./api/app');
require('./lib/temporal').tracingClientInterceptors();
const loaded = Object.keys(require.cache).filter((k) => /@opentelemetry\\/(sdk-|exporter-|instrumentation)|interceptors-opentelemetry/.test(k)).length;
process.stdout.write(JSON.stringify({ enabled: tracing.tracingEnabled(), loaded }));
`;

async function probe(otel: Record<string, string>): Promise<{ enabled: boolean; loaded: number }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('OTEL_')));
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', PROBE], {
    cwd: path.resolve(__dirname, '../../..'),
    env: { ...env, ...otel },
  });
  return JSON.parse(stdout);
}

describe('tracing off', () => {
  // The three probes are separate processes with nothing shared: started together, the file takes as long as the
  // slowest rather than the sum (each compiles and loads the API, ~10 s of CPU).
  const off = probe({});
  const disabled = probe({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
  const on = probe({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
  // A rejected probe is awaited by its test; this only keeps node from reporting it unhandled before then.
  for (const pending of [off, disabled, on]) pending.catch(() => undefined);

  it('loads no OpenTelemetry SDK when no OTLP endpoint is set', async () => {
    expect(await off).toEqual({ enabled: false, loaded: 0 });
  }, 120_000);

  it('loads none when OTEL_SDK_DISABLED=true, even with an endpoint', async () => {
    expect(await disabled).toEqual({ enabled: false, loaded: 0 });
  }, 120_000);

  it('starts the SDK when an endpoint is set', async () => {
    const started = await on;
    expect(started.enabled).toBe(true);
    expect(started.loaded).toBeGreaterThan(0);
  }, 120_000);
});
