import knex, { Knex } from 'knex';
import pg from 'pg';
import { parseJson } from '../lib/json';

// json/jsonb columns hold amounts of any size: parse them without rounding big integers.
pg.types.setTypeParser(pg.types.builtins.JSON, parseJson);
pg.types.setTypeParser(pg.types.builtins.JSONB, parseJson);

export type Db = Knex;
export type Executor = Knex | Knex.Transaction;

export function createDb(connectionString: string, options: { poolMax?: number } = {}): Db {
  return knex({
    client: 'pg',
    connection: { connectionString, application_name: process.env.APP_NAME || 'financial-platform' },
    pool: { min: 0, max: options.poolMax ?? Number(process.env.DATABASE_POOL_MAX || 20) },
    // A failing database must surface as a 503 within seconds, not hang a request.
    acquireConnectionTimeout: Number(process.env.DATABASE_ACQUIRE_TIMEOUT_MS || 5000),
  });
}
