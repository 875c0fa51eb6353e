import { stringifyJson } from '../lib/json';
import type { Executor } from './knex';

export const OUTBOX_CHANNEL = 'events_outbox';

export interface PlatformEvent {
  app: 'ledger' | 'wallets' | 'payments' | 'orchestration' | 'webhooks' | 'auth';
  /** Formance's event type, e.g. COMMITTED_TRANSACTIONS; webhook subscriptions use `<app>.<lower_snake_type>`. */
  type: string;
  payload: unknown;
  version?: string;
}

/**
 * Writes events into the outbox with the caller's executor, which must be the transaction of the change itself: the
 * event then commits or rolls back with it, so none is lost and none describes a change that did not happen.
 * NOTIFY is transactional too, so the dispatcher only hears about committed rows.
 */
export async function emitEvents(trx: Executor, events: PlatformEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = await trx('events_outbox')
    .insert(events.map((e) => ({ app: e.app, type: e.type, version: e.version ?? 'v2', payload: stringifyJson(e.payload) })))
    .returning('id');
  await trx.raw('SELECT pg_notify(?, ?)', [OUTBOX_CHANNEL, '']);
  return rows.map((r: { id: string }) => r.id);
}
