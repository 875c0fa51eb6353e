import fs from 'node:fs';
import path from 'node:path';
import { dashboardMetricNames } from '../support/dashboard';

/**
 * The observability services of docker-compose.yml: each mounted configuration file exists and parses, and they are
 * wired together (the platform exports to the collector's OTLP/HTTP port, the collector to Jaeger, Prometheus scrapes
 * every platform port, Grafana reads Prometheus and the shipped dashboard). No Docker here: the files are read.
 */
// js-yaml (a dev dependency without typings of its own).
const yaml = require('js-yaml') as { load(text: string): unknown };
const ROOT = path.resolve(__dirname, '../..');
const readYaml = (file: string) => yaml.load(fs.readFileSync(path.join(ROOT, file), 'utf8')) as any;

interface Service {
  image?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
}
const compose = readYaml('docker-compose.yml') as { services: Record<string, Service> };

/** The host side of a service's bind mounts, which must exist in the repository. */
const mounts = (service: Service) => (service.volumes ?? []).filter((v) => v.startsWith('./')).map((v) => v.split(':')[0]);

describe('docker-compose.yml observability', () => {
  it('runs a collector, Jaeger, Prometheus and Grafana from pinned images, with every mounted file present', () => {
    for (const name of ['otel-collector', 'jaeger', 'prometheus', 'grafana']) {
      const service = compose.services[name];
      expect(service.image).toMatch(/:[0-9v][\w.-]*$/);
      for (const mount of mounts(service)) expect(fs.existsSync(path.join(ROOT, mount))).toBe(true);
    }
  });

  it("sends the API's and the worker's spans to the collector's OTLP/HTTP receiver, which forwards them to Jaeger", () => {
    for (const name of ['api', 'worker']) expect(compose.services[name].environment?.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://otel-collector:4318');
    const collector = readYaml('deploy/otel-collector.yaml');
    expect(collector.receivers.otlp.protocols.http.endpoint).toBe('0.0.0.0:4318');
    expect(collector.service.pipelines.traces.receivers).toEqual(['otlp']);
    for (const exporter of collector.service.pipelines.traces.exporters) expect(collector.exporters[exporter].endpoint).toBe('jaeger:4317');
  });

  it("has Prometheus scrape the API's port and the worker's two metrics ports, which the worker binds on its network", () => {
    const prometheus = readYaml('deploy/prometheus.yml');
    const targets = prometheus.scrape_configs.flatMap((job: any) =>
      job.dns_sd_configs.flatMap((sd: any) => sd.names.map((n: string) => `${n}:${sd.port}`)),
    );
    expect(targets.sort()).toEqual(['api:8080', 'worker:9464', 'worker:9465']);
    expect(compose.services.worker.environment?.METRICS_HOST).toBe('0.0.0.0');
    expect(compose.services.api.environment?.PORT).toBe(8080);
  });

  it('provisions Grafana with Prometheus and the shipped dashboard, whose every panel queries Prometheus', () => {
    const datasources = readYaml('deploy/grafana/provisioning/datasources/prometheus.yml').datasources;
    expect(datasources).toEqual([expect.objectContaining({ type: 'prometheus', uid: 'prometheus', url: 'http://prometheus:9090' })]);
    const provider = readYaml('deploy/grafana/provisioning/dashboards/platform.yml').providers[0];
    expect(compose.services.grafana.volumes).toContain(`./deploy/grafana/dashboards:${provider.options.path}:ro`);
    const dashboard = JSON.parse(fs.readFileSync(path.join(ROOT, 'deploy/grafana/dashboards/financial-platform.json'), 'utf8'));
    for (const panel of dashboard.panels) for (const target of panel.targets) expect(target.datasource.uid).toBe('prometheus');
    // The figures the dashboard is for.
    expect(dashboardMetricNames()).toEqual(
      expect.arrayContaining([
        'http_requests_total',
        'http_request_duration_seconds',
        'ledger_group_commit_batch_size',
        'events_outbox_backlog',
        'webhook_delivery_attempts_total',
        'temporal_worker_task_slots_available',
      ]),
    );
  });
});
