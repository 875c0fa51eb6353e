import knex, { Knex } from 'knex';
import pg from 'pg';
import { getConfig } from '../lib/config';
import { parseJson, stringifyJson } from '../lib/json';

// json/jsonb columns hold amounts of any size: parse them without rounding big integers.
pg.types.setTypeParser(pg.types.builtins.JSON, parseJson);
pg.types.setTypeParser(pg.types.builtins.JSONB, parseJson);

export type Db = Knex;
export type Executor = Knex | Knex.Transaction;

/**
 * An object bound to a query is a JSON column value, which pg would serialize with JSON.stringify: that throws on a
 * BigInt amount and rounds nothing else either. Serializing it here makes every JSON value reach PostgreSQL exactly.
 * Arrays stay arrays (pg sends them as PostgreSQL arrays), dates and buffers stay what pg expects.
 */
function toBinding(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Date || Buffer.isBuffer(value)) return value;
  if (typeof (value as { toPostgres?: unknown }).toPostgres === 'function') return value;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null ? stringifyJson(value) : value;
}

/** A pool for this process; its size, acquire timeout and `application_name` default to the process's settings. */
export function createDb(connectionString: string, options: { poolMax?: number; applicationName?: string } = {}): Db {
  const config = getConfig();
  const db = knex({
    client: 'pg',
    connection: { connectionString, application_name: options.applicationName ?? config.appName },
    pool: { min: 0, max: options.poolMax ?? config.databasePoolMax },
    // A failing database must surface as a 503 within seconds, not hang a request.
    acquireConnectionTimeout: config.databaseAcquireTimeoutMs,
  });
  const client = db.client as { prepBindings(bindings: unknown[]): unknown[] };
  const prepBindings = client.prepBindings.bind(client);
  client.prepBindings = (bindings) => prepBindings(bindings).map(toBinding);
  return db;
}
