import type { DeliveryPlan } from '../../lib/webhooks/settings';

/**
 * The first wait of a delivery workflow's send activity retry policy. Temporal waits initialInterval × coefficientⁿ⁻¹
 * before the activity's attempt n + 1; when the workflow's first attempt is the delivery's attempt `offset` (the
 * earlier ones were made by the event batch), its initial interval is the delivery's wait before attempt offset + 1,
 * so the whole delivery follows one exponential schedule. Offset 0 gives the plan's own initial interval.
 */
export function sendRetryInitialIntervalMs(retry: DeliveryPlan['retry'], offset: number): number {
  return Math.min(retry.initialIntervalMs * retry.backoffCoefficient ** offset, Math.max(retry.maximumIntervalMs, retry.initialIntervalMs));
}

/**
 * How long one attempt of `count` deliveries may take (the batch send activity's start-to-close timeout):
 * every round of `concurrency` requests may use the whole HTTP timeout, plus a margin for reading and recording.
 */
export function sendBatchTimeoutMs(count: number, concurrency: number, httpTimeoutMs: number): number {
  return Math.ceil(count / Math.max(1, concurrency)) * httpTimeoutMs + 60_000;
}
