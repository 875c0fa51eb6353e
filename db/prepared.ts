import type { Knex } from 'knex';

interface PooledConnection {
  query(config: { name: string; text: string; values: unknown[]; rowMode?: 'array' }): Promise<{ rows: unknown[] }>;
  /** knex's mark of a connection its pool must not hand out again. */
  __knex__disposed?: unknown;
}
interface PoolClient {
  emit(event: 'query', query: { sql: string; bindings: unknown[]; method: 'raw'; name: string }): void;
  acquireConnection(): Promise<PooledConnection>;
  releaseConnection(connection: PooledConnection): Promise<unknown>;
}

/**
 * Errors after which a connection's named statement cannot run again: a migration changed the result type of its
 * plan (0A000, "cached plan must not change result type"), or the server forgot it (26000, as after DISCARD ALL).
 */
const STALE_STATEMENT = new Set(['0A000', '26000']);

/**
 * Runs a named statement (`$n` placeholders) on a connection of the knex pool. node-postgres parses a named statement
 * once per connection and PostgreSQL keeps its plan: for the hottest constant statements, parse and plan cost
 * PostgreSQL more than executing them. The statement is announced on knex's `query` event (`db.on('query')`), for
 * whoever traces statements. A connection whose statement went stale is dropped from the pool, so the next one
 * prepares it afresh. With `rowMode: 'array'` each row is an array of its columns in order, not an object keyed by their
 * names: node-postgres builds a keyed row by spreading a null-prototype template, which for a two-column row cost more
 * than the rest of its parsing.
 */
export async function preparedRows<Row>(db: Knex, name: string, text: string, values: unknown[], rowMode?: 'array'): Promise<Row[]> {
  const client = db.client as unknown as PoolClient;
  const connection = await client.acquireConnection();
  try {
    client.emit('query', { sql: text, bindings: values, method: 'raw', name });
    return (await connection.query(rowMode ? { name, text, values, rowMode } : { name, text, values })).rows as Row[];
  } catch (error) {
    if (STALE_STATEMENT.has((error as { code?: string }).code ?? '')) connection.__knex__disposed = error;
    throw error;
  } finally {
    await client.releaseConnection(connection);
  }
}
