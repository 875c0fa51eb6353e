/**
 * A concurrency limit: `run(task)` starts the task at once while fewer than `limit` run, else when one ends (first
 * come, first served). A finishing task hands its slot straight to the next waiter.
 */
export function createLimiter(limit: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async function run<T>(task: () => Promise<T>): Promise<T> {
    if (active < limit) active += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active -= 1;
    }
  };
}

/** One limiter per key (e.g. per endpoint), each allowing `limit` tasks at once. */
export function keyedLimiter(limit: number) {
  const limiters = new Map<string, ReturnType<typeof createLimiter>>();
  return <T>(key: string, task: () => Promise<T>): Promise<T> => {
    let limiter = limiters.get(key);
    if (!limiter) limiters.set(key, (limiter = createLimiter(limit)));
    return limiter(task);
  };
}
