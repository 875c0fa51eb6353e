import type { Knex } from 'knex';

interface PooledConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}
interface PoolClient {
  emit(event: 'query', query: { sql: string; bindings: unknown[]; method: 'raw'; name: string }): void;
  acquireConnection(): Promise<PooledConnection>;
  releaseConnection(connection: PooledConnection): Promise<unknown>;
}

/**
 * Runs a named statement (`$n` placeholders) on a connection of the knex pool. node-postgres parses a named statement
 * once per connection and PostgreSQL keeps its plan: for the hottest constant statements, parse and plan cost
 * PostgreSQL more than executing them. The statement is announced as knex's own are (`db.on('query')`), for whoever
 * traces them.
 */
export async function preparedRows<Row>(db: Knex, name: string, text: string, values: unknown[]): Promise<Row[]> {
  const client = db.client as unknown as PoolClient;
  const connection = await client.acquireConnection();
  try {
    client.emit('query', { sql: text, bindings: values, method: 'raw', name });
    return (await connection.query({ name, text, values })).rows as Row[];
  } finally {
    await client.releaseConnection(connection);
  }
}
