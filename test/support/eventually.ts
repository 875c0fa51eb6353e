/**
 * Polls `read` every `intervalMs` until `until` holds of its value, and returns that value; fails after `timeoutMs`
 * with the last value read. A liveness bound for work that finishes in the background (workflows, deliveries,
 * connector tasks), not a timed assertion: the bound is far above what the work takes.
 */
export async function pollUntil<T>(
  read: () => Promise<T> | T,
  until: (value: T) => boolean,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const { timeoutMs = 30_000, intervalMs = 200, what = 'condition' } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (until(value)) return value;
    if (Date.now() > deadline) {
      const last = JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v));
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last value: ${last}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
