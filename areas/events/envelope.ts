import type { Executor } from '../../db/knex';
import { parseJson, stringifyJson } from '../../lib/json';

/**
 * An outbox event as it travels through Temporal. `payload` stays the raw JSON text written by `emitEvents`: Temporal's
 * JSON converter cannot carry BigInt, and keeping the text means webhook bodies repeat amounts byte for byte.
 * Parse it with `parseJson` from lib/json.ts when a value is needed.
 */
export interface EventEnvelope {
  id: string;
  /** ISO 8601 commit time. */
  date: string;
  app: string;
  version: string;
  /** Formance's type as emitted, e.g. COMMITTED_TRANSACTIONS. */
  type: string;
  payload: string;
  /**
   * Present when an orchestration instance's step wrote the event (events_outbox.causation): the chain of instances
   * that led to it, the writing instance last. Triggers read it so a workflow cannot trigger itself without end.
   */
  causation?: EventCausation;
}

/** One instance of a causation chain: started by `triggerID` (on an event of the link before it), or by a client. */
export interface CausationLink {
  instanceID: string;
  workflowID: string;
  triggerID?: string;
}

export interface EventCausation {
  chain: CausationLink[];
}

interface OutboxRow {
  id: string;
  app: string;
  type: string;
  version: string;
  date: Date;
  payload: string;
  causation: string | null;
}

export const OUTBOX_COLUMNS = ['id', 'app', 'type', 'version', 'date', 'payload', 'causation'];

export function toEnvelope(row: OutboxRow): EventEnvelope {
  return {
    id: row.id,
    date: new Date(row.date).toISOString(),
    app: row.app,
    version: row.version,
    type: row.type,
    payload: row.payload,
    ...(row.causation ? { causation: parseJson(row.causation) as EventCausation } : {}),
  };
}

/** The webhook subscription name of an event: `<app>.<lower_snake_type>`, e.g. `ledger.committed_transactions`. */
export function webhookEventType(event: Pick<EventEnvelope, 'app' | 'type'>): string {
  return `${event.app.toLowerCase()}.${event.type.toLowerCase()}`;
}

/**
 * The body a webhook receiver gets: the envelope with the webhook type (Formance posts the whole re-typed envelope),
 * built around the raw payload text so big integers are not rounded.
 */
export function webhookBody(event: EventEnvelope): string {
  const head = stringifyJson({ id: event.id, date: event.date, app: event.app, version: event.version, type: webhookEventType(event) });
  return `${head.slice(0, -1)},"payload":${event.payload}}`;
}

export async function loadEvent(db: Executor, id: string): Promise<EventEnvelope | undefined> {
  const row = (await db('events_outbox').select(OUTBOX_COLUMNS).where({ id }).first()) as OutboxRow | undefined;
  return row ? toEnvelope(row) : undefined;
}
