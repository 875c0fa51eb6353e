import pg from 'pg';
import type { Logger } from '../lib/logger';
import { isExpectedShutdownError } from './shutdown';

export interface NotifiedLoopOptions {
  databaseUrl: string;
  /** The NOTIFY channel that says there may be work (sent in the writers' transactions, so on commit). */
  channel: string;
  /** Names the LISTEN connection (application_name) and the log lines. */
  name: string;
  logger: Logger;
  /** The fallback pass when a notification is missed (LISTEN connection down, restart). */
  pollIntervalMs: number;
  /** One unit of work. @returns true when there may be more right away. */
  pass(): Promise<boolean>;
}

/**
 * A background loop woken by a PostgreSQL NOTIFY, with a periodic pass as fallback: prompt when notifications arrive,
 * correct when they do not (nothing depends on a notification but the latency). Single flight in the process: a
 * wake-up during a drain makes that drain go round once more instead of starting a second one.
 */
export function startNotifiedLoop(options: NotifiedLoopOptions) {
  const { logger, name } = options;
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let listener: pg.Client | undefined;

  async function drain(): Promise<void> {
    do {
      again = false;
      try {
        while (!stopped && (await options.pass()));
      } catch (error) {
        logger[isExpectedShutdownError(error) ? 'debug' : 'warn']({ err: error }, `${name} failed; retrying at the next notification or pass`);
      }
    } while (again && !stopped);
  }

  function wake(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = drain().finally(() => (running = undefined));
  }

  async function listen(): Promise<void> {
    if (stopped) return;
    const client = new pg.Client({ connectionString: options.databaseUrl, application_name: name });
    listener = client;
    const reconnect = (error: unknown) => {
      if (listener !== client || stopped) return;
      listener = undefined;
      logger[isExpectedShutdownError(error) ? 'debug' : 'warn'](
        { err: error },
        `${name} LISTEN connection lost; reconnecting (the periodic pass covers the gap)`,
      );
      client.end().catch(() => undefined);
      setTimeout(() => void listen().catch(reconnect), 1000).unref();
    };
    client.on('error', reconnect);
    client.on('end', () => reconnect(new Error('connection ended')));
    client.on('notification', wake);
    try {
      await client.connect();
      await client.query(`LISTEN ${options.channel}`);
      wake(); // work committed before LISTEN took effect
    } catch (error) {
      reconnect(error);
    }
  }

  void listen();
  const timer = setInterval(wake, options.pollIntervalMs);
  wake();

  return {
    /** Runs what is pending now (tests and benchmarks). */
    drainNow: async () => {
      wake();
      while (running) await running;
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
      const client = listener;
      listener = undefined;
      await client?.end().catch(() => undefined);
    },
  };
}
