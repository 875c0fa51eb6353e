import { getConfig, type Config } from '../config';
import type { BlockList } from 'node:net';

/**
 * Webhook delivery settings, from the settings of the worker (and of the API for the write-time SSRF check).
 * Retries are per endpoint: a failing endpoint is probed on an exponential schedule (10 s × 3 per attempt, capped at
 * 6 h, by default) while its deliveries wait in its queue; a delivery is given up after 72 h, an endpoint disabled
 * after 5 days without a success (as Svix).
 */
export interface WebhookSettings {
  /** WEBHOOKS_RETRY_INITIAL_INTERVAL_MS: delay before the first retry. */
  initialIntervalMs: number;
  /** WEBHOOKS_RETRY_BACKOFF_COEFFICIENT: each retry waits this many times longer than the previous one. */
  backoffCoefficient: number;
  /** WEBHOOKS_RETRY_MAX_INTERVAL_MS: the longest wait between two attempts. */
  maximumIntervalMs: number;
  /** WEBHOOKS_RETRY_FOR_MS: no attempt is scheduled later than this after the delivery (or its replay) started. */
  retryForMs: number;
  /** WEBHOOKS_HTTP_TIMEOUT_MS: the whole request, connect to last response byte. */
  httpTimeoutMs: number;
  /** WEBHOOKS_SECRET_ROTATION_GRACE_MS: how long requests are also signed with the previous secret after a change. */
  rotationGraceMs: number;
  /** WEBHOOKS_ALLOWED_CIDRS: ranges exempted from the SSRF deny list (e.g. 127.0.0.0/8 for a local receiver). */
  allowed: BlockList;
  /** WEBHOOKS_BATCH_CONCURRENCY: requests in flight at once in the attempts an event batch makes itself. */
  batchConcurrency: number;
  /**
   * WEBHOOKS_DISABLE_AFTER_MS: an endpoint that has answered no attempt successfully for this long (its backoff
   * started that long ago) is disabled, and a `webhooks.endpoint_disabled` event says so.
   */
  disableAfterMs: number;
  /**
   * WEBHOOKS_DRAIN_CONCURRENCY: requests in flight at once when an endpoint's queue is sent. The queue goes out in
   * order, this many at a time (1: strictly one after the other).
   */
  drainConcurrency: number;
  /** WEBHOOKS_DRAIN_SWEEP_INTERVAL_MS: how often each worker makes sure every endpoint queue has its workflow. */
  drainSweepIntervalMs: number;
}

/** The webhook part of the process's settings (lib/config.ts reads and checks them). */
export function loadWebhookSettings(config: Config = getConfig()): WebhookSettings {
  return {
    initialIntervalMs: config.webhooksRetryInitialIntervalMs,
    backoffCoefficient: config.webhooksRetryBackoffCoefficient,
    maximumIntervalMs: config.webhooksRetryMaxIntervalMs,
    retryForMs: config.webhooksRetryForMs,
    httpTimeoutMs: config.webhooksHttpTimeoutMs,
    rotationGraceMs: config.webhooksSecretRotationGraceMs,
    allowed: config.webhooksAllowedCidrs,
    batchConcurrency: config.webhooksBatchConcurrency,
    disableAfterMs: config.webhooksDisableAfterMs,
    drainConcurrency: config.webhooksDrainConcurrency,
    drainSweepIntervalMs: config.webhooksDrainSweepIntervalMs,
  };
}

/** The wait before retry number `retry` (1 = the first retry), as Temporal computes it for the send activity. */
export function backoffDelayMs(
  settings: Pick<WebhookSettings, 'initialIntervalMs' | 'backoffCoefficient' | 'maximumIntervalMs'>,
  retry: number,
): number {
  return Math.min(settings.initialIntervalMs * settings.backoffCoefficient ** (retry - 1), settings.maximumIntervalMs);
}

/**
 * Requests to one endpoint in flight at once in an event batch's attempts: a quarter of the batch's, so one
 * slow or silent endpoint cannot hold every slot while the others wait.
 */
export function endpointConcurrency(settings: Pick<WebhookSettings, 'batchConcurrency'>): number {
  return Math.max(1, Math.ceil(settings.batchConcurrency / 4));
}
