import { isDatabaseUnavailable } from './errors';

let stopping = false;

/** Called by a process when it starts to stop (SIGINT/SIGTERM), before it closes anything. */
export function markStopping(): void {
  stopping = true;
}

/** PostgreSQL's "the server is shutting down" answers: admin_shutdown (57P01) and cannot_connect_now (57P03). */
const SERVER_SHUTTING_DOWN = new Set(['57P01', '57P03']);
/** A knex/tarn pool used after destroy(): `aborted` for a pending acquire, no pool at all afterwards. */
const POOL_DESTROYED = /^(aborted|Unable to acquire a connection)$/;

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; typeof e === 'object' && e !== null && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

/**
 * Whether `error` is what stopping the platform causes by design, and so no news: PostgreSQL telling its clients it is
 * shutting down, which is how every connection ends under `npm start`'s Ctrl-C (the terminal signals every process of
 * the group at once, PostgreSQL included), and, once this process is stopping itself, a connection that is cut,
 * refused or closed, or a pool already destroyed. Callers log these at debug; anything else is a real error.
 */
export function isExpectedShutdownError(error: unknown, whileStopping = stopping): boolean {
  return causes(error).some((e) => {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && SERVER_SHUTTING_DOWN.has(code)) return true;
    return whileStopping && (isDatabaseUnavailable(e) || POOL_DESTROYED.test(String(message ?? '')));
  });
}
