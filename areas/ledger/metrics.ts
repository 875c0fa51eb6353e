import { UNHASHED_LOGS_SQL } from './logs/log-hasher';
import type { Executor } from './types';

/**
 * Formance's `GET /_/metrics` (an object of named figures). Only figures this platform really has: the ledgers'
 * counters (read from the counters the writes bump, so no table is scanned), the logs without a hash (each ledger's
 * log counter against its chain position, the same one row per ledger), and this API process's own uptime and memory.
 */
export async function ledgerMetrics(db: Executor): Promise<Record<string, number>> {
  const totals = await db('ledgers').first(
    db.raw('count(*)::int AS ledgers'),
    db.raw('count(*) FILTER (WHERE deleted_at IS NOT NULL)::int AS deleted'),
    db.raw('coalesce(sum(next_txid), 0)::text AS transactions'),
    db.raw('coalesce(sum(next_log_id), 0)::text AS logs'),
  );
  // Every log past the chain's position: the hasher's backlog, and the logs of HASH_LOGS DISABLED ledgers (never hashed).
  const unhashed = (await db.raw(`SELECT coalesce(sum(pending), 0)::text AS count FROM (${UNHASHED_LOGS_SQL}) u`)).rows[0] as { count: string };
  const schemas = await db('ledger_schemas').count<{ count: string }>('* as count').first();
  const memory = process.memoryUsage();
  return {
    'ledger.ledgers': Number(totals.ledgers),
    'ledger.ledgers_deleted': Number(totals.deleted),
    'ledger.transactions': Number(totals.transactions),
    'ledger.logs': Number(totals.logs),
    'ledger.logs_unhashed': Number(unhashed?.count ?? 0),
    'ledger.schemas': Number(schemas?.count ?? 0),
    'process.uptime_seconds': Math.round(process.uptime()),
    'process.memory.rss_bytes': memory.rss,
    'process.memory.heap_used_bytes': memory.heapUsed,
  };
}
