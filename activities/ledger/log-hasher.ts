import pg from 'pg';
import { hashPendingLogs } from '../../areas/ledger';
import type { Db } from '../../db/knex';
import { OUTBOX_CHANNEL } from '../../db/outbox';
import type { Logger } from '../../lib/logger';
import { isExpectedShutdownError } from '../../lib/shutdown';

export interface LogHasherOptions {
  db: Db;
  databaseUrl: string;
  logger: Logger;
  /** LEDGER_LOGS_POLL_INTERVAL_MS: the fallback pass when a notification is missed. */
  pollIntervalMs?: number;
  /** LEDGER_LOGS_HASH_INTERVAL_MS: the least time between two passes, i.e. how long commits gather into one pass. */
  hashIntervalMs?: number;
}

/**
 * Hashes the ledgers' logs behind their commits (docs/ledger.md, "The log"). Single flight in this process; across
 * processes hashLedgerLogs' row lock keeps one hasher per ledger. Every ledger write emits an event in its transaction
 * and NOTIFYs the outbox channel, so listening there wakes the hasher at each commit at no cost to the writers.
 */
export function startLogHasher(options: LogHasherOptions) {
  const pollIntervalMs = options.pollIntervalMs ?? Number(process.env.LEDGER_LOGS_POLL_INTERVAL_MS || 1000);
  const hashIntervalMs = options.hashIntervalMs ?? Number(process.env.LEDGER_LOGS_HASH_INTERVAL_MS || 200);
  const { db, logger } = options;
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let listener: pg.Client | undefined;

  /**
   * Passes are at least hashIntervalMs apart. Every commit notifies, so without the pause a loaded ledger would pay one
   * hashing transaction per write (measured: +1.5 ms of worker and +1.6 ms of PostgreSQL CPU per write at 32 clients);
   * with it, one pass hashes everything committed meanwhile. The lag this adds is bounded by the interval.
   */
  async function drain(): Promise<void> {
    do {
      const started = Date.now();
      again = false;
      try {
        while (!stopped && (await hashPendingLogs(db)) > 0);
      } catch (error) {
        logger[isExpectedShutdownError(error) ? 'debug' : 'warn']({ err: error }, 'ledger log hashing failed; retrying at the next notification or pass');
      }
      const rest = hashIntervalMs - (Date.now() - started);
      if (again && !stopped && rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
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
    const client = new pg.Client({ connectionString: options.databaseUrl, application_name: 'ledger-log-hasher' });
    listener = client;
    const reconnect = (error: unknown) => {
      if (listener !== client || stopped) return;
      listener = undefined;
      logger[isExpectedShutdownError(error) ? 'debug' : 'warn']({ err: error }, 'log hasher LISTEN connection lost; reconnecting (the periodic pass covers the gap)');
      client.end().catch(() => undefined);
      setTimeout(() => void listen().catch(reconnect), 1000).unref();
    };
    client.on('error', reconnect);
    client.on('end', () => reconnect(new Error('connection ended')));
    client.on('notification', wake);
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      wake();
    } catch (error) {
      reconnect(error);
    }
  }

  void listen();
  const timer = setInterval(wake, pollIntervalMs);
  wake();

  return {
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
