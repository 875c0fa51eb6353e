import { loadConfig } from '../../lib/config';

describe('observability settings', () => {
  it("defaults: API metrics on, worker metrics on 127.0.0.1:9464 and the SDK's on 9465, audit kept 90 days, SDK logs at WARN", () => {
    expect(loadConfig({})).toMatchObject({
      apiMetrics: true,
      metricsHost: '127.0.0.1',
      workerMetricsPort: 9464,
      temporalMetricsPort: 9465,
      auditRetentionDays: 90,
      temporalLogLevel: 'WARN',
    });
  });

  it('reads each setting and refuses a malformed one naming it', () => {
    expect(
      loadConfig({
        API_METRICS: 'off',
        METRICS_HOST: '0.0.0.0',
        WORKER_METRICS_PORT: '0',
        TEMPORAL_METRICS_PORT: '19465',
        AUDIT_RETENTION_DAYS: '0',
        TEMPORAL_LOG_LEVEL: 'info',
      }),
    ).toMatchObject({
      apiMetrics: false,
      metricsHost: '0.0.0.0',
      workerMetricsPort: 0,
      temporalMetricsPort: 19465,
      auditRetentionDays: 0,
      temporalLogLevel: 'INFO',
    });
    expect(() => loadConfig({ API_METRICS: 'yes' })).toThrow(/API_METRICS must be "on" or "off"/);
    expect(() => loadConfig({ WORKER_METRICS_PORT: '-1' })).toThrow(/WORKER_METRICS_PORT must be an integer from 0 to 65535/);
    expect(() => loadConfig({ AUDIT_RETENTION_DAYS: '7d' })).toThrow(/AUDIT_RETENTION_DAYS/);
    expect(() => loadConfig({ TEMPORAL_LOG_LEVEL: 'LOUD' })).toThrow(/TEMPORAL_LOG_LEVEL must be/);
  });

  it('tracing: off without an OTLP endpoint or with OTEL_SDK_DISABLED=true; on, the standard OTEL_* variables', () => {
    expect(loadConfig({}).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing).toEqual({
      tracesUrl: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      serviceName: undefined,
      resourceAttributes: {},
      sampleRatio: 1,
    });
    expect(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp/v1/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_HEADERS: 'api-key=a%3Db,tenant=x',
        OTEL_SERVICE_NAME: 'fp',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=staging',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      }).tracing,
    ).toEqual({
      tracesUrl: 'https://traces.example/otlp/v1/traces',
      protocol: 'http/json',
      headers: { 'api-key': 'a=b', tenant: 'x' },
      serviceName: 'fp',
      resourceAttributes: { 'deployment.environment': 'staging' },
      sampleRatio: 0.25,
    });
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT must be a URL \(http or https\)/,
    );
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL must be one of http\/protobuf, http\/json/,
    );
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_HEADERS: 'novalue' })).toThrow(
      /OTEL_EXPORTER_OTLP_HEADERS must be a list of key=value/,
    );
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(
      /OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/,
    );
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER: 'always_off' })).toThrow(
      /OTEL_TRACES_SAMPLER must be/,
    );
  });
});
