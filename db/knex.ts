import knex, { Knex } from 'knex';
import pg from 'pg';
import { getConfig } from '../lib/config';
import { parseJson } from '../lib/json';

// json/jsonb columns hold amounts of any size: parse them without rounding big integers.
pg.types.setTypeParser(pg.types.builtins.JSON, parseJson);
pg.types.setTypeParser(pg.types.builtins.JSONB, parseJson);

export type Db = Knex;
export type Executor = Knex | Knex.Transaction;

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
  return db;
}
