import { searchAttributeFlags } from '../../lib/search-attributes';

/**
 * What the production drill runs for each service of docker-compose.yml. test/unit/compose-topology.test.ts compares
 * this table with the compose file, so the drill keeps drilling the topology that is actually deployed: a renamed
 * entry point or a new environment variable in one and not the other fails `npm test`.
 */
export interface PlatformService {
  /** The compose service name. */
  service: 'migrate' | 'api' | 'worker';
  /** The compose `command`, run from the repository root with this Node for `node`. */
  command: string[];
  /**
   * The compose `environment` names; the drill gives each a 127.0.0.1 value of its own. OTEL_EXPORTER_OTLP_ENDPOINT
   * is Jaeger's OTLP receiver (compose's goes through a collector to it); the workers, which share one host here, also
   * get metrics ports of their own (WORKER_METRICS_PORT, TEMPORAL_METRICS_PORT).
   */
  environment: string[];
  /** How many the drill runs side by side (compose scales them with `--scale`). */
  replicas: number;
}

export const PLATFORM_SERVICES: PlatformService[] = [
  { service: 'migrate', command: ['node', 'dist/scripts/migrate.js'], environment: ['DATABASE_URL'], replicas: 1 },
  {
    service: 'api',
    command: ['node', 'dist/api/server.js'],
    environment: ['PORT', 'HOST', 'PUBLIC_URL', 'DATABASE_URL', 'TEMPORAL_ADDRESS', 'LOG_LEVEL', 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    replicas: 2,
  },
  {
    service: 'worker',
    command: ['node', 'dist/activities/worker.js'],
    environment: ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'LOG_LEVEL', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'METRICS_HOST'],
    replicas: 2,
  },
];

/**
 * Variables the drill adds to every platform process beyond the compose file's: the webhook receiver listens on
 * 127.0.0.1, which the SSRF guard refuses by default, and retries come within seconds instead of minutes so a
 * delivery cut by a fault is retried within the drill.
 */
export const DRILL_ONLY_ENVIRONMENT: Record<string, string> = {
  WEBHOOKS_ALLOWED_CIDRS: '127.0.0.0/8',
  WEBHOOKS_RETRY_INITIAL_INTERVAL_MS: '500',
  WEBHOOKS_RETRY_MAX_INTERVAL_MS: '2000',
  WEBHOOKS_RETRY_FOR_MS: '600000',
  EVENTS_POLL_INTERVAL_MS: '500',
};

/**
 * The services the drill replaces with real parts started without Docker: Jaeger as Jaeger v2 built from its Go
 * module, Prometheus as VictoriaMetrics single-node (same scrape configuration and PromQL). The Web UI, the collector
 * (a relay between the platform and Jaeger) and Grafana are not drilled.
 */
export const INFRASTRUCTURE_SERVICES = ['postgres', 'temporal', 'temporal-search-attributes', 'jaeger', 'prometheus'] as const;
export const NOT_DRILLED_SERVICES = ['temporal-ui', 'otel-collector', 'grafana'] as const;

/** The Temporal server release docker-compose.yml runs (temporalio/auto-setup:<version>), built from source here. */
export const TEMPORAL_SERVER_VERSION = '1.29.1';

/**
 * `temporal operator search-attribute create` arguments, as the compose file's temporal-search-attributes job runs
 * them: `[name, type]` for each of the platform's search attributes.
 */
export function searchAttributeRegistrations(): Array<[string, string]> {
  return searchAttributeFlags().map((flag) => flag.split('=') as [string, string]);
}
