import { deleteAuditEntriesBefore } from '../areas/auth';
import type { Db } from '../db/knex';
import type { Logger } from '../lib/logger';

const HOUR_MS = 3600_000;

/**
 * Deletes audit entries older than `retentionDays` (AUDIT_RETENTION_DAYS; 0 keeps them forever) at start and every
 * hour. Every worker replica runs it: deletes of the same old rows are idempotent, so no election is needed.
 */
export function startAuditRetention(options: { db: Db; retentionDays: number; logger: Logger; intervalMs?: number }): { stop(): Promise<void> } {
  if (options.retentionDays <= 0) return { stop: async () => undefined };
  let running: Promise<void> = Promise.resolve();
  const purge = () => {
    running = deleteAuditEntriesBefore(options.db, new Date(Date.now() - options.retentionDays * 24 * HOUR_MS))
      .then((deleted) => {
        if (deleted > 0) options.logger.info({ deleted, retentionDays: options.retentionDays }, 'audit: entries past their retention deleted');
      })
      .catch((error) => options.logger.error({ err: error }, 'audit: retention delete failed; retried at the next run'));
  };
  purge();
  const timer = setInterval(purge, options.intervalMs ?? HOUR_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
