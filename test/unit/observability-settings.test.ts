import { loadConfig } from '../../lib/config';

describe('observability settings', () => {
  it('defaults: API metrics on, worker metrics on 127.0.0.1:9464 and the SDK\'s on 9465, audit kept 90 days, SDK logs at WARN', () => {
    expect(loadConfig({})).toMatchObject({ apiMetrics: true, metricsHost: '127.0.0.1', workerMetricsPort: 9464, temporalMetricsPort: 9465, auditRetentionDays: 90, temporalLogLevel: 'WARN' });
  });

  it('reads each setting and refuses a malformed one naming it', () => {
    expect(
      loadConfig({ API_METRICS: 'off', METRICS_HOST: '0.0.0.0', WORKER_METRICS_PORT: '0', TEMPORAL_METRICS_PORT: '19465', AUDIT_RETENTION_DAYS: '0', TEMPORAL_LOG_LEVEL: 'info' }),
    ).toMatchObject({ apiMetrics: false, metricsHost: '0.0.0.0', workerMetricsPort: 0, temporalMetricsPort: 19465, auditRetentionDays: 0, temporalLogLevel: 'INFO' });
    expect(() => loadConfig({ API_METRICS: 'yes' })).toThrow(/API_METRICS must be "on" or "off"/);
    expect(() => loadConfig({ WORKER_METRICS_PORT: '-1' })).toThrow(/WORKER_METRICS_PORT must be an integer from 0 to 65535/);
    expect(() => loadConfig({ AUDIT_RETENTION_DAYS: '7d' })).toThrow(/AUDIT_RETENTION_DAYS/);
    expect(() => loadConfig({ TEMPORAL_LOG_LEVEL: 'LOUD' })).toThrow(/TEMPORAL_LOG_LEVEL must be/);
  });
});
