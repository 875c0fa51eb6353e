/**
 * How long one attempt of `count` deliveries may take (the batch send activity's start-to-close timeout):
 * every round of `concurrency` requests may use the whole HTTP timeout, plus a margin for reading and recording.
 */
export function sendBatchTimeoutMs(count: number, concurrency: number, httpTimeoutMs: number): number {
  return Math.ceil(count / Math.max(1, concurrency)) * httpTimeoutMs + 60_000;
}
