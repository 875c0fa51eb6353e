/** How long to wait and how often to look, and what a timeout message calls the condition. */
export interface PollOptions {
  timeoutMs?: number;
  intervalMs?: number;
  what?: string;
}

/**
 * The one polling helper of the tests: calls `read` every `intervalMs` until `until` holds of its value, and returns
 * that value; fails after `timeoutMs` with the last value read. A liveness bound for work that finishes in the
 * background (workflows, deliveries, connector tasks), not a timed assertion: the bound is far above what the work
 * takes. With a type guard (`isDefined`, `isTruthy`) the value comes back narrowed.
 */
export function pollUntil<T, U extends T>(read: () => Promise<T> | T, until: (value: T) => value is U, options?: PollOptions): Promise<U>;
export function pollUntil<T>(read: () => Promise<T> | T, until: (value: T) => boolean, options?: PollOptions): Promise<T>;
export async function pollUntil<T>(read: () => Promise<T> | T, until: (value: T) => boolean, options: PollOptions = {}): Promise<T> {
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

/** `until` for a probe that answers undefined until it has its value. */
export const isDefined = <T>(value: T): value is Exclude<T, undefined> => value !== undefined;

/** `until` for a probe that answers a falsy value (false, 0, undefined…) until it has its value. */
export const isTruthy = <T>(value: T): value is Exclude<T, undefined | null | false | 0 | ''> => Boolean(value);

/**
 * Waits until the clock reads later than `instantMs` (ms since the epoch) and returns what it read: for a time boundary
 * (an instant that must be in the past, a timestamp that must move), not for background work. The API and PostgreSQL
 * read the same clock as the tests.
 */
export const clockPast = (instantMs: number): Promise<number> =>
  pollUntil(
    () => Date.now(),
    (now) => now > instantMs,
    { intervalMs: 1, what: `the clock to pass ${new Date(instantMs).toISOString()}` },
  );
