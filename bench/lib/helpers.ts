import { createDb, type Db } from '../../db/knex';
import { createTemporalClient } from '../../lib/temporal';
import type { BenchPlatform } from './platform';

/** A short-lived knex pool on the bench platform's database (setup, seeding, checks). */
export async function withDb<T>(platform: BenchPlatform, work: (db: Db) => Promise<T>, poolMax = 4): Promise<T> {
  const db = createDb(platform.databaseUrl, { poolMax });
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

/** Polls a `count(*)::int AS n` query until it answers 0 or the deadline passes. @returns the last count. */
async function awaitZero(platform: BenchPlatform, sql: string, bindings: string[], timeoutMs: number): Promise<number> {
  return withDb(
    platform,
    async (db) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { rows } = await db.raw(sql, bindings);
        const pending = rows[0].n as number;
        if (pending === 0 || Date.now() > deadline) return pending;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
    1,
  );
}

/**
 * Waits (bounded) until the dispatcher has moved every outbox row to Temporal, so the event workflows one scenario
 * caused do not eat the CPU of the next one's measurement. @returns the rows still pending at the deadline.
 */
export function drainOutbox(platform: BenchPlatform, timeoutMs = 120_000): Promise<number> {
  return awaitZero(platform, 'SELECT count(*)::int AS n FROM events_outbox WHERE dispatched_at IS NULL', [], timeoutMs);
}

/**
 * Waits (bounded) until the worker's hasher has chained every log of `ledger`, the background work a seeding leaves
 * behind once its events are dispatched. @returns the logs still unhashed at the deadline.
 */
export function awaitLogsHashed(platform: BenchPlatform, ledger: string, timeoutMs = 120_000): Promise<number> {
  return awaitZero(
    platform,
    `SELECT (l.next_log_id - 1 - coalesce(c.hashed_through, -1))::int AS n FROM ledgers l LEFT JOIN ledger_log_chain c ON c.ledger = l.name WHERE l.name = ?`,
    [ledger],
    timeoutMs,
  );
}

/**
 * Leaves PostgreSQL nothing to do in the background after a seeding, as pgbench vacuums before it measures: the
 * seeded tables vacuumed and analyzed now rather than by autovacuum during the measurement, and their pages written
 * out by a checkpoint now rather than by the next one (skipped when the bench's database user may not checkpoint).
 */
export async function quietDatabase(platform: BenchPlatform, tables: string[]): Promise<void> {
  await withDb(
    platform,
    async (db) => {
      await db.raw(`VACUUM (ANALYZE) ${tables.map(() => '??').join(', ')}`, tables);
      await db.raw('CHECKPOINT').catch(() => undefined);
    },
    1,
  );
}

/**
 * Drains the outbox, then waits (bounded) until Temporal has no running workflow left (event workflows, deliveries,
 * instances; not long-lived ones such as connector fetches), so one scenario's tail neither loads the next measurement nor escapes its own CPU count.
 * @returns what was still pending at the deadline (outbox rows + running workflows).
 */
const SETTLE_QUERY =
  'ExecutionStatus="Running" AND (WorkflowType="processEvent" OR WorkflowType="processEventBatch" OR WorkflowType="orchestrationInstance")';

export async function settle(platform: BenchPlatform, timeoutMs = 120_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  const pendingRows = await drainOutbox(platform, timeoutMs);
  const { client, connection } = await createTemporalClient({ address: platform.temporalAddress, namespace: 'default' });
  try {
    for (;;) {
      const { count } = await client.workflow.count(SETTLE_QUERY);
      if (count === 0 || Date.now() > deadline) return pendingRows + count;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    await connection.close();
  }
}

/** JSON API call with a Bearer token; throws on an unexpected status (setup steps must not fail silently). */
export async function call(
  platform: BenchPlatform,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  expect: number[] = [200, 201, 204],
): Promise<any> {
  const response = await fetch(`${platform.apiUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!expect.includes(response.status)) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

export const authJson = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' });

/** Uniform integer in [0, n). Load shapes only: no security meaning. */
export const pick = (n: number): number => Math.floor(Math.random() * n);
