import type { Knex } from 'knex';
import pg from 'pg';
import { isDatabaseUnavailable } from './errors';

/** Suffix of the connection's application_name, so an operator can tell it apart in pg_stat_activity. */
export const PIPELINED_APPLICATION_NAME_SUFFIX = '/pipelined-reads';

/**
 * Errors after which the connection's named statements cannot run again: a migration changed the result type of a plan
 * (0A000, "cached plan must not change result type"), or the server forgot them (26000, as after DISCARD ALL).
 */
const STALE_STATEMENT = new Set(['0A000', '26000']);

interface PipelinedConnection {
  client: pg.Client;
  connected: Promise<pg.Client>;
  ended: boolean;
}

interface KnexConnectionConfig {
  connectionString?: string;
  application_name?: string;
}

const connections = new WeakMap<Knex, PipelinedConnection>();
const destroyHooked = new WeakSet<Knex>();
const destroyed = new WeakSet<Knex>();

/**
 * Runs a read-only statement (named, so prepared once, for the hot ones) on the process's pipelined connection to
 * PostgreSQL, one per knex instance, outside its pool. node-postgres's pipeline mode writes a statement while the ones
 * before it still run on the same backend: a busy backend finds the next statement already in its socket, where a
 * pooled connection's idle backend had to be woken for each one, and on the 2-core machine that wake-up was the
 * largest part of the API's cost of a statement (docs/benchmarks.md). Each statement carries its own Sync, so one that
 * fails leaves the others unharmed.
 *
 * Only for reads: a statement is retried once on a new connection when its connection died under it, which would be
 * wrong for a write whose commit may have happened. The connection is opened on first use, dropped when it fails or a
 * statement went stale (a migration changed a result type), and closed by the knex instance's destroy().
 */
export async function pipelinedRows<Row>(db: Knex, name: string | undefined, text: string, values: unknown[], rowMode?: 'array'): Promise<Row[]> {
  for (let attempt = 1; ; attempt += 1) {
    const connection = connectionOf(db);
    try {
      const client = await connection.connected;
      (db.client as unknown as { emit(event: 'query', query: unknown): void }).emit('query', { sql: text, bindings: values, method: 'raw', name });
      const config = { ...(name ? { name } : {}), text, values, ...(rowMode ? { rowMode } : {}) };
      return (await client.query(config as pg.QueryConfig)).rows as Row[];
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      const dead = isDatabaseUnavailable(error);
      if (dead || STALE_STATEMENT.has(code)) void drop(db, connection);
      if (!dead || attempt >= 2) throw error;
    }
  }
}

function connectionOf(db: Knex): PipelinedConnection {
  const existing = connections.get(db);
  if (existing) return existing;
  // knex's own words for a destroyed pool, which a stopping process expects (lib/shutdown.ts): a connection opened
  // now would never be closed and would hold the process open.
  if (destroyed.has(db) || !(db.client as unknown as { pool?: unknown }).pool) throw new Error('Unable to acquire a connection');
  hookDestroy(db);
  const config = (db.client as unknown as { config: { connection: KnexConnectionConfig; acquireConnectionTimeout?: number } }).config;
  const client = new pg.Client({
    ...config.connection,
    application_name: `${config.connection.application_name ?? 'financial-platform'}${PIPELINED_APPLICATION_NAME_SUFFIX}`,
    // As long as a pooled connection may take to be handed out: a database that does not answer is a 503 in seconds.
    connectionTimeoutMillis: config.acquireConnectionTimeout ?? 5000,
    pipeline: true,
  } as pg.ClientConfig);
  const connection: PipelinedConnection = { client, connected: client.connect().then(() => client), ended: false };
  // A connection error also rejects every statement sent on it; the listener only keeps it from being thrown.
  client.on('error', () => void drop(db, connection));
  client.on('end', () => void drop(db, connection));
  connection.connected.catch(() => void drop(db, connection));
  connections.set(db, connection);
  return connection;
}

function drop(db: Knex, connection: PipelinedConnection): Promise<void> {
  if (connections.get(db) === connection) connections.delete(db);
  if (connection.ended) return Promise.resolve();
  connection.ended = true;
  // Ended only once connected: node-postgres's end() during the connect leaves connect() unsettled, and with it every
  // read waiting for the connection. A connect that fails or times out settles on its own.
  return connection.connected.then(
    (client) => client.end().catch(() => undefined),
    () => undefined,
  );
}

/**
 * Closes the pipelined connection when the knex instance is destroyed, so a stopping process is not held open by it.
 * knex's own destroy() is read-only; it calls its client's, which is wrapped instead.
 */
function hookDestroy(db: Knex): void {
  if (destroyHooked.has(db)) return;
  destroyHooked.add(db);
  const client = db.client as unknown as { destroy(callback?: unknown): Promise<void> };
  const destroy = client.destroy.bind(client);
  client.destroy = async (callback?: unknown) => {
    destroyed.add(db);
    const connection = connections.get(db);
    if (connection) await drop(db, connection);
    return destroy(callback);
  };
}
