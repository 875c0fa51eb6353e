import dns from 'node:dns/promises';
import net from 'node:net';
import { Pool } from 'pg';
import type { ExportedLog, PostgresExporterConfig } from '../../../areas/ledger';
import { stringifyJson } from '../../../lib/json';
import { getConfig } from '../../../lib/config';
import { BlockedAddressError, isAddressAllowed } from '../../../lib/webhooks/ssrf';

const TIMEOUT_MS = 10_000;

interface Target {
  pool: Pool;
  table: string;
  ready?: Promise<void>;
}

/** One small pool per target (URL and table), kept for the worker's life: batches come every second or so. */
const targets = new Map<string, Target>();

/** The host the socket will reach, vetted as webhook addresses are, so an exporter cannot reach what they cannot. */
async function vettedAddress(host: string): Promise<string> {
  const bare = host.replace(/^\[|\]$/g, '');
  const addresses = net.isIP(bare) !== 0 ? [bare] : (await dns.lookup(bare, { all: true })).map((a) => a.address);
  const usable = addresses.find((address) => isAddressAllowed(address, getConfig().webhooksAllowedCidrs));
  if (!usable) throw new BlockedAddressError(bare, addresses[0]);
  return usable;
}

async function targetOf(config: PostgresExporterConfig): Promise<Target> {
  const table = config.table ?? 'ledger_logs';
  const key = `${config.url}\n${table}`;
  let target = targets.get(key);
  if (!target) {
    const url = new URL(config.url);
    const pool = new Pool({
      host: await vettedAddress(url.hostname),
      port: url.port ? Number(url.port) : 5432,
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: decodeURIComponent(url.pathname.slice(1)),
      max: 2,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: TIMEOUT_MS,
      statement_timeout: TIMEOUT_MS,
      allowExitOnIdle: true,
    });
    pool.on('error', () => undefined); // an idle client's broken connection: the next batch opens another
    target = { pool, table };
    targets.set(key, target);
  }
  return target;
}

const quoted = (table: string): string => `"${table}"`;

/** Creates the target table once per pool; two workers creating it at once is fine. */
function ensureTable(target: Target): Promise<void> {
  target.ready ??= target.pool
    .query(
      `CREATE TABLE IF NOT EXISTS ${quoted(target.table)} (ledger text NOT NULL, id bigint NOT NULL, type text NOT NULL, date timestamptz NOT NULL, data jsonb NOT NULL, hash text NOT NULL, PRIMARY KEY (ledger, id))`,
    )
    .then(
      () => undefined,
      (error: { code?: string }) => {
        target.ready = undefined;
        // 23505/42P07: a concurrent CREATE won the race; the table is there.
        if (error.code !== '23505' && error.code !== '42P07') throw error;
      },
    );
  return target.ready;
}

/**
 * The PostgreSQL driver: one row per log in a table of the target database (created when missing), keyed by (ledger,
 * id). A batch is one INSERT ... ON CONFLICT DO NOTHING, so delivering logs again (a retried batch, a crash before the
 * position was saved, a reset) leaves exactly one row per log.
 */
export async function deliverPostgresBatch(config: PostgresExporterConfig, logs: ExportedLog[]): Promise<void> {
  const target = await targetOf(config);
  await ensureTable(target);
  await target.pool.query(
    `INSERT INTO ${quoted(target.table)} (ledger, id, type, date, data, hash)
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::timestamptz[], $5::jsonb[], $6::text[])
     ON CONFLICT (ledger, id) DO NOTHING`,
    [
      logs.map((l) => l.ledger),
      logs.map((l) => l.id.toString()),
      logs.map((l) => l.type),
      logs.map((l) => l.date.toISOString()),
      logs.map((l) => stringifyJson(l.data)),
      logs.map((l) => l.hash),
    ],
  );
}
