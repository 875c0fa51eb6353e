import { quoteJson, stringifyJson } from '../lib/json';
import type { Executor } from './knex';

export const OUTBOX_CHANNEL = 'events_outbox';

export interface PlatformEvent {
  app: 'ledger' | 'wallets' | 'payments' | 'orchestration' | 'webhooks' | 'auth' | 'reconciliation';
  /** Formance's event type, e.g. COMMITTED_TRANSACTIONS; webhook subscriptions use `<app>.<lower_snake_type>`. */
  type: string;
  payload: unknown;
  version?: string;
}

/**
 * Writes events into the outbox with the caller's executor, which must be the transaction of the change itself: the
 * event then commits or rolls back with it, so none is lost and none describes a change that did not happen.
 * NOTIFY is transactional too, so the dispatcher only hears about committed rows. Rows and NOTIFY go in one statement:
 * every write of the platform emits events, and a round trip to PostgreSQL costs both sides more CPU than the insert.
 */
export async function emitEvents(trx: Executor, events: PlatformEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const result = await trx.raw(`WITH e AS (${outboxInsert()}), n AS (SELECT pg_notify(?, '')) SELECT e.id FROM e CROSS JOIN n ORDER BY e.seq`, [
    ...outboxParameters(events),
    OUTBOX_CHANNEL,
  ]);
  return result.rows.map((r: { id: string }) => r.id);
}

/**
 * The INSERT of `events` (parameters: `outboxParameters`) in their order, for statements that emit events in one of
 * their CTEs; `only` keeps the events whose 1-based position `e.n` it accepts (SQL over e.n). Returns `id, seq`.
 * Payloads stay text, byte for byte (big integers, key order), as the column is: each travels as a JSON string
 * holding that text, which PostgreSQL decodes back to it. (Inlined as a json member instead, a payload holding an
 * escaped NUL, `\u0000`, which the text column stores, would make PostgreSQL refuse the whole document.)
 */
export function outboxInsert(only = 'true'): string {
  return `INSERT INTO events_outbox (app, type, version, payload)
    SELECT e.app, e.type, e.version, e.payload
    FROM ROWS FROM (json_to_recordset(?::json) AS (app text, type text, version text, payload text)) WITH ORDINALITY AS e(app, type, version, payload, n)
    WHERE ${only} ORDER BY e.n RETURNING id, seq`;
}

/** A CTE body that NOTIFYs once if the CTE `e` (an outboxInsert) inserted anything; its binding is OUTBOX_CHANNEL. */
export const NOTIFY_IF_EMITTED = `SELECT pg_notify(?, '') FROM (SELECT 1 FROM e LIMIT 1) AS emitted`;

/**
 * outboxInsert's one parameter. One JSON document rather than four text arrays: node-postgres escapes every element
 * of an array parameter character by character in JavaScript, which cost more than writing the payloads themselves.
 */
export function outboxParameters(events: PlatformEvent[]): [string] {
  let json = '[';
  for (const e of events) {
    if (json.length > 1) json += ',';
    json += `{"app":${quoteJson(e.app)},"type":${quoteJson(e.type)},"version":${quoteJson(e.version ?? 'v2')},"payload":${quoteJson(stringifyJson(e.payload) ?? 'null')}}`;
  }
  return [`${json}]`];
}
