import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import { Counter } from 'prom-client';
import { recordAuditEntries, type AuditEntry } from '../areas/auth';
import type { Db } from '../db/knex';
import type { Logger } from '../lib/logger';
import { registry } from '../lib/metrics';
import type { AppState } from './context';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The embedded issuer's endpoints (token requests, revocations): its own router, outside the route table. */
const ISSUER_PATHS = /^\/api\/auth\/(\.well-known\/|jwks$|oauth\/)/;
/** Entries waiting are written together at most this long after the first of them was answered. */
const FLUSH_AFTER_MS = 200;
/** A burst is written in statements of this many entries. */
const FLUSH_SIZE = 500;
/** Held while PostgreSQL cannot take them; beyond, the oldest are dropped (and counted) rather than exhaust memory. */
const MAX_PENDING = 50_000;

const written = new Counter({ name: 'audit_entries_written_total', help: 'Audit entries stored', registers: [registry] });
const dropped = new Counter({
  name: 'audit_entries_dropped_total',
  help: 'Audit entries lost: held beyond AUDIT buffer while PostgreSQL could not take them',
  registers: [registry],
});

export interface AuditTrail {
  /** Called once a request's answer is final; keeps an entry when the request was state-changing and routed. */
  record(ctx: Koa.Context, durationMs: number): void;
  /** Writes what is pending (at shutdown, and in tests). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Records the audit trail after the answer, in batches: a write's own transaction is never lengthened by it, and one
 * INSERT (with its events) serves every request answered within FLUSH_AFTER_MS. The price is the window: entries of a
 * process that dies before its next flush are lost (at most once; a graceful stop flushes first). An entry that fails
 * to be written is kept and retried with the next batch (its id makes the retry idempotent).
 */
export function createAuditTrail(db: Db, logger: Logger): AuditTrail {
  let pending: AuditEntry[] = [];
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> | undefined;
  let failures = 0;

  const schedule = (delay = FLUSH_AFTER_MS) => {
    timer ??= setTimeout(() => {
      timer = undefined;
      void flush();
    }, delay);
  };

  async function writeOnce(): Promise<void> {
    while (pending.length > 0) {
      const batch = pending.slice(0, FLUSH_SIZE);
      try {
        await recordAuditEntries(db, batch);
      } catch (error) {
        failures += 1;
        logger.error({ err: error, pending: pending.length }, 'audit: could not store entries; retried');
        // Backs off up to 10 s while PostgreSQL is away.
        schedule(Math.min(10_000, FLUSH_AFTER_MS * 2 ** Math.min(failures, 6)));
        return;
      }
      failures = 0;
      written.inc(batch.length);
      pending = pending.slice(batch.length);
    }
  }

  function flush(): Promise<void> {
    flushing ??= writeOnce().finally(() => (flushing = undefined));
    return flushing;
  }

  return {
    record(ctx, durationMs) {
      const route = (ctx as Koa.Context & { routerPath?: string }).routerPath;
      if (!STATE_CHANGING.has(ctx.method) || !route || ISSUER_PATHS.test(ctx.path)) return;
      const state = ctx.state as Partial<AppState>;
      const principal = state.principal;
      pending.push({
        id: randomUUID(),
        at: new Date(Date.now() - durationMs).toISOString(),
        ...(principal ? { clientId: principal.clientId } : {}),
        scopes: principal ? [...principal.scopes].sort() : [],
        method: ctx.method,
        route: route.replace(/:([A-Za-z0-9_]+)/g, '{$1}'),
        targets: { ...(ctx.params as Record<string, string> | undefined) },
        status: ctx.status,
        requestId: state.requestId ?? '',
        // Only when traced: the entry (and its event) then leads to the request's trace.
        ...(state.traceId ? { traceId: state.traceId } : {}),
        durationMs: Math.round(durationMs * 10) / 10,
      });
      if (pending.length > MAX_PENDING) {
        dropped.inc(pending.length - MAX_PENDING);
        pending = pending.slice(pending.length - MAX_PENDING);
      }
      if (pending.length >= FLUSH_SIZE) void flush();
      else schedule();
    },
    flush: async () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
      await flushing;
      await flush();
    },
    async close() {
      await this.flush();
      if (timer) clearTimeout(timer);
    },
  };
}
