import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import pg from 'pg';
import { OUTBOX_CHANNEL } from '../../db/outbox';
import { OUTBOX_COLUMNS, toEnvelope, webhookEventType } from '../../db/events/envelope';
import { loadSubscriptions } from '../../db/events/subscriptions';
import type { Db } from '../../db/knex';
import type { Logger } from '../../lib/logger';
import { SEARCH_ATTRIBUTES } from '../../lib/search-attributes';

export interface DispatcherOptions {
  db: Db;
  databaseUrl: string;
  temporal: { client: Client; taskQueue: string };
  logger: Logger;
  /** EVENTS_POLL_INTERVAL_MS: the fallback scan when a notification is missed (LISTEN connection down, restart). */
  pollIntervalMs?: number;
  batchSize?: number;
}

/**
 * Moves committed outbox rows into Temporal: one `processEvent` workflow per event that a webhook config or a trigger
 * listens to, id `event-<eventId>`; the others are only marked dispatched.
 * - Prompt: LISTEN on the channel `emitEvents` NOTIFYs in the writer's transaction; a periodic scan covers anything
 *   missed, including rows committed while this process or Temporal was down (nothing is lost: a row stays
 *   undispatched until its workflow has started).
 * - Safe with several workers: each batch is claimed with FOR UPDATE SKIP LOCKED, and should two dispatchers still
 *   start the same event (a crash between start and commit), the workflow id with REJECT_DUPLICATE makes the second
 *   start a no-op, counted as done.
 */
export function startEventDispatcher(options: DispatcherOptions) {
  const pollIntervalMs = options.pollIntervalMs ?? Number(process.env.EVENTS_POLL_INTERVAL_MS || 2000);
  const batchSize = options.batchSize ?? 200;
  const { logger } = options;
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let listener: pg.Client | undefined;

  async function start(row: Parameters<typeof toEnvelope>[0]): Promise<boolean> {
    const event = toEnvelope(row);
    try {
      await options.temporal.client.workflow.start('processEvent', {
        taskQueue: options.temporal.taskQueue,
        workflowId: `event-${event.id}`,
        args: [event],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: [
          { key: SEARCH_ATTRIBUTES.PlatformArea, value: 'events' },
          { key: SEARCH_ATTRIBUTES.EventType, value: webhookEventType(event) },
        ],
      });
      return true;
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) return true;
      logger.warn({ err: error, eventId: event.id }, 'could not start the event workflow; the event stays in the outbox');
      return false;
    }
  }

  /** Claims and dispatches one batch. @returns whether a full batch went through (there may be more). */
  async function dispatchBatch(): Promise<boolean> {
    return options.db.transaction(async (trx) => {
      const rows = await trx('events_outbox').select(OUTBOX_COLUMNS).whereNull('dispatched_at').orderBy('seq').limit(batchSize).forUpdate().skipLocked();
      if (rows.length === 0) return false;
      const subscribed = await loadSubscriptions(trx);
      // Events nobody listens to are marked dispatched without a workflow (see loadSubscriptions).
      const started = await Promise.all(rows.map((row) => (subscribed(row) ? start(row) : true)));
      const ids = rows.filter((_row, i) => started[i]).map((row) => row.id);
      if (ids.length > 0) await trx('events_outbox').whereIn('id', ids).update({ dispatched_at: trx.fn.now() });
      return rows.length === batchSize && ids.length === rows.length;
    });
  }

  async function drain(): Promise<void> {
    do {
      again = false;
      try {
        while (!stopped && (await dispatchBatch()));
      } catch (error) {
        logger.warn({ err: error }, 'event dispatch failed; retrying at the next notification or scan');
      }
    } while (again && !stopped);
  }

  /** Single flight: a wake-up during a drain makes that drain go round once more instead of running a second one. */
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
    const client = new pg.Client({ connectionString: options.databaseUrl, application_name: 'event-dispatcher' });
    listener = client;
    const reconnect = (error: unknown) => {
      if (listener !== client || stopped) return;
      listener = undefined;
      logger.warn({ err: error }, 'outbox LISTEN connection lost; reconnecting (the periodic scan covers the gap)');
      client.end().catch(() => undefined);
      setTimeout(() => void listen().catch(reconnect), 1000).unref();
    };
    client.on('error', reconnect);
    client.on('end', () => reconnect(new Error('connection ended')));
    client.on('notification', wake);
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      wake(); // rows committed before LISTEN took effect
    } catch (error) {
      reconnect(error);
    }
  }

  void listen();
  const timer = setInterval(wake, pollIntervalMs);
  wake();

  return {
    /** Dispatches what is pending now (tests and benchmarks). */
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
