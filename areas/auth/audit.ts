import type { Db, Executor } from '../../db/knex';
import { emitEvents } from '../../db/outbox';
import { keysetPage, type Page, type PageRequest } from '../../db/pagination';
import { stringifyJson } from '../../lib/json';

/**
 * The audit trail: who changed what through the API. One entry per state-changing request (POST, PUT, PATCH, DELETE)
 * a declared route answered, whatever its status (a refused attempt is audit material too). It holds the route's
 * template and its path parameters (the target ids), never a body, a query or a header: those carry secrets.
 */
export interface AuditEntry {
  id: string;
  /** ISO 8601 time the request arrived. */
  at: string;
  /** The calling client; absent when the request carried no valid token (a 401). */
  clientId?: string;
  scopes: string[];
  method: string;
  /** The route's template, as in the OpenAPI document: `/api/ledger/v2/{ledger}/transactions/{id}`. */
  route: string;
  /** The route's path parameters: the ids of what the request targeted. */
  targets: Record<string, string>;
  status: number;
  requestId: string;
  /** The request's trace id (hex), when the API traces; absent otherwise. */
  traceId?: string;
  durationMs: number;
}

/** The event each entry is also emitted as; webhooks subscribe to it as `auth.audit_entry_recorded`. */
export const AUDIT_EVENT_TYPE = 'AUDIT_ENTRY_RECORDED';

interface AuditRow {
  seq: string;
  id: string;
  at: Date;
  client_id: string | null;
  scopes: string[];
  method: string;
  route: string;
  targets: Record<string, string>;
  status: number;
  request_id: string;
  trace_id: string | null;
  duration_ms: number;
}

/**
 * Stores entries and emits their events, in one transaction: an entry stored is an event emitted, and the reverse.
 * Re-sending an entry already stored (a flush retried after a lost COMMIT answer) stores and emits nothing more.
 */
export async function recordAuditEntries(db: Db, entries: AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await db.transaction(async (trx) => {
    const inserted: Array<{ id: string }> = (
      await trx.raw(
        `INSERT INTO audit_entries (id, at, client_id, scopes, method, route, targets, status, request_id, trace_id, duration_ms)
         SELECT e.id, e.at, e."clientId", coalesce(e.scopes, '{}'), e.method, e.route, coalesce(e.targets, '{}'), e.status, e."requestId", e."traceId", e."durationMs"
         FROM json_to_recordset(?::json) AS e(id uuid, at timestamptz, "clientId" text, scopes text[], method text, route text, targets jsonb, status int, "requestId" text, "traceId" text, "durationMs" float8)
         ORDER BY e.at
         ON CONFLICT (id) DO NOTHING RETURNING id`,
        [stringifyJson(entries.map((e) => ({ ...e, scopes: `{${e.scopes.map((s) => `"${s.replace(/["\\]/g, '\\$&')}"`).join(',')}}` })))],
      )
    ).rows;
    const fresh = new Set(inserted.map((row) => row.id));
    await emitEvents(
      trx,
      entries.filter((e) => fresh.has(e.id)).map((payload) => ({ app: 'auth' as const, type: AUDIT_EVENT_TYPE, payload })),
    );
  });
}

export interface AuditFilters {
  clientId?: string;
  route?: string;
  status?: number;
  /** Inclusive lower and exclusive upper bounds of `at`. */
  startTime?: Date;
  endTime?: Date;
}

/** Entries newest first, filtered; keyset pages on `seq`. */
export async function listAuditEntries(db: Executor, filters: AuditFilters, page: PageRequest): Promise<Page<AuditEntry & { seq: string }>> {
  const query = db<AuditRow>('audit_entries').select('*');
  if (filters.clientId !== undefined) query.where('client_id', filters.clientId);
  if (filters.route !== undefined) query.where('route', filters.route);
  if (filters.status !== undefined) query.where('status', filters.status);
  if (filters.startTime !== undefined) query.where('at', '>=', filters.startTime);
  if (filters.endTime !== undefined) query.where('at', '<', filters.endTime);
  const result = await keysetPage<AuditRow>(query, ['seq'], 'desc', page);
  return { ...result, items: result.items.map(present) };
}

function present(row: AuditRow): AuditEntry & { seq: string } {
  return {
    seq: String(row.seq),
    id: row.id,
    at: new Date(row.at).toISOString(),
    ...(row.client_id !== null ? { clientId: row.client_id } : {}),
    scopes: row.scopes,
    method: row.method,
    route: row.route,
    targets: row.targets,
    status: row.status,
    requestId: row.request_id,
    ...(row.trace_id !== null ? { traceId: row.trace_id } : {}),
    durationMs: row.duration_ms,
  };
}

/**
 * Deletes entries older than `cutoff`, `batch` rows per statement so a large first purge never holds a long lock or
 * one huge transaction. @returns how many were deleted.
 */
export async function deleteAuditEntriesBefore(db: Executor, cutoff: Date, batch = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await db.raw('DELETE FROM audit_entries WHERE seq IN (SELECT seq FROM audit_entries WHERE at < ? ORDER BY seq LIMIT ?)', [
      cutoff,
      batch,
    ]);
    total += deleted.rowCount ?? 0;
    if ((deleted.rowCount ?? 0) < batch) return total;
  }
}
