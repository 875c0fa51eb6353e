import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { cpuPerOperation, cpuSnapshot } from '../../lib/cpu';
import type { BenchPlatform } from '../../lib/platform';
import { measureLoop, percentile, type Measurement } from '../../lib/stats';

/**
 * The raw-SQL floor of a ledger write: what one transaction write does in areas/ledger/writes/write-pipeline.ts,
 * done directly with `pg` on the same PostgreSQL and the same tables (so the same indexes): lock the two volume rows
 * in address order (the same statement as lockVolumes), update them, upsert the accounts, take the next txid and insert the transaction row (postings,
 * pre/post-commit volumes, sources/destinations), insert the outbox row with its NOTIFY, commit.
 * The outbox row is written already dispatched: the floor measures the database, not the event pipeline behind it.
 */
export const ASSET = 'USD/2';
export const FUNDS = 10n ** 15n;

export interface FloorShape {
  ledger: string;
  accounts: number;
  /** A fixed source (hot account) or undefined for a random funded source. */
  hotSource?: string;
}

export const srcAccount = (i: number) => `bench:src:${i}`;
export const dstAccount = (i: number) => `bench:dst:${i}`;
export const HOT = 'bench:hot';

/** Creates the floor's ledger with funded source rows (and the hot one), balanced against world. */
export async function seedFloorLedger(platform: BenchPlatform, ledger: string, accounts: number): Promise<void> {
  const sources = [...Array.from({ length: accounts }, (_, i) => srcAccount(i)), HOT];
  const client = new pg.Client({ connectionString: platform.databaseUrl });
  await client.connect();
  try {
    await client.query('INSERT INTO ledgers (name) VALUES ($1)', [ledger]);
    await client.query(
      `INSERT INTO ledger_volumes (ledger, address, asset, input, output)
       SELECT $1, a, $2, $3::numeric, 0 FROM unnest($4::text[]) AS a
       UNION ALL SELECT $1, 'world', $2, 0, $3::numeric * $5`,
      [ledger, ASSET, FUNDS.toString(), sources, sources.length],
    );
  } finally {
    await client.end();
  }
}

const volume = (input: bigint, output: bigint) => ({ input: input.toString(), output: output.toString(), balance: (input - output).toString() });

async function floorWrite(client: pg.ClientBase, shape: FloorShape): Promise<void> {
  const source = shape.hotSource ?? srcAccount(Math.floor(Math.random() * shape.accounts));
  const destination = dstAccount(Math.floor(Math.random() * shape.accounts));
  const { ledger } = shape;
  const amount = 1n;
  await client.query('BEGIN');
  try {
    // The same statement as lockVolumes (areas/ledger/reads/volumes.ts): create-if-missing and lock, in address order.
    const locked = await client.query(
      `INSERT INTO ledger_volumes (ledger, address, asset, input, output)
       SELECT $1, t.address, $2, 0, 0 FROM unnest($3::text[]) WITH ORDINALITY AS t(address, n) ORDER BY t.n
       ON CONFLICT (ledger, address, asset) DO UPDATE SET input = ledger_volumes.input
       RETURNING address, input::text AS input, output::text AS output`,
      [ledger, ASSET, [source, destination].sort()],
    );
    const row = (address: string) => locked.rows.find((r) => r.address === address) as { input: string; output: string };
    const [src, dst] = [row(source), row(destination)];
    if (BigInt(src.input) - BigInt(src.output) < amount) throw new Error('floor source ran out of funds');
    // Volumes and accounts in one statement, as writeVolumesAndTakeIds does.
    await client.query(
      `WITH v AS (
         UPDATE ledger_volumes SET input = input + CASE WHEN address = $4 THEN $5::numeric ELSE 0 END,
                                   output = output + CASE WHEN address = $3 THEN $5::numeric ELSE 0 END
         WHERE ledger = $1 AND asset = $2 AND address IN ($3, $4) RETURNING 1
       )
       INSERT INTO ledger_accounts (ledger, address) SELECT $1, a FROM unnest($6::text[]) AS a ON CONFLICT DO NOTHING`,
      [ledger, ASSET, source, destination, amount.toString(), [destination, source].sort()],
    );
    const postings = JSON.stringify([{ source, destination, amount: Number(amount), asset: ASSET }]);
    const pre = {
      [source]: { [ASSET]: volume(BigInt(src.input), BigInt(src.output)) },
      [destination]: { [ASSET]: volume(BigInt(dst.input), BigInt(dst.output)) },
    };
    const post = {
      [source]: { [ASSET]: volume(BigInt(src.input), BigInt(src.output) + amount) },
      [destination]: { [ASSET]: volume(BigInt(dst.input) + amount, BigInt(dst.output)) },
    };
    const tx = await client.query(
      `WITH n AS (UPDATE ledgers SET next_txid = next_txid + 1 WHERE name = $1 RETURNING next_txid - 1 AS id)
       INSERT INTO ledger_transactions (ledger, id, timestamp, postings, metadata, pre_commit_volumes, post_commit_volumes, sources, destinations)
       SELECT $1, n.id, now(), $2::json, '{}'::jsonb, $3::json, $4::json, $5::text[], $6::text[] FROM n RETURNING id`,
      [ledger, postings, JSON.stringify(pre), JSON.stringify(post), [source], [destination]],
    );
    // One statement for the event and its NOTIFY, as emitEvents does.
    await client.query(
      `WITH e AS (INSERT INTO events_outbox (app, type, payload, dispatched_at) VALUES ('ledger', 'COMMITTED_TRANSACTIONS', $1, now()) RETURNING id)
       SELECT e.id FROM e CROSS JOIN (SELECT pg_notify('bench_floor', '')) AS n`,
      [JSON.stringify({ ledger, transactions: [{ id: tx.rows[0].id, postings, preCommitVolumes: pre, postCommitVolumes: post }] })],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

/** The floor with `pg`: `concurrency` connections, `total` writes. */
export async function pgFloor(
  platform: BenchPlatform,
  scenario: string,
  shape: FloorShape,
  concurrency: number,
  total: number,
): Promise<Measurement> {
  const pool = new pg.Pool({ connectionString: platform.databaseUrl, max: concurrency });
  try {
    const cpu = cpuSnapshot();
    const measurement = await measureLoop({
      scenario,
      unit: 'tx/s',
      concurrency,
      total,
      warmup: 3,
      operation: async () => {
        const client = await pool.connect();
        try {
          await floorWrite(client, shape);
        } finally {
          client.release();
        }
      },
    });
    // Before the pool closes: its backends' CPU is counted only while they live. The same object (not a copy) keeps
    // its remembered samples, for rounds combined with combineRounds.
    return Object.assign(measurement, { notes: `CPU ms/tx: ${cpuPerOperation(cpu, cpuSnapshot(), measurement.operations)}` });
  } finally {
    await pool.end();
  }
}

/** The same write as a pgbench script (pgbench variables are spliced into the SQL text). */
function pgbenchScript(shape: FloorShape): string {
  const l = `'${shape.ledger}'`;
  const src = shape.hotSource ? `'${shape.hotSource}'` : `'bench:src:' || :s`;
  const dst = `'bench:dst:' || :d`;
  return `\\set s random(0, ${shape.accounts - 1})
\\set d random(0, ${shape.accounts - 1})
BEGIN;
INSERT INTO ledger_volumes (ledger, address, asset, input, output) SELECT ${l}, a, '${ASSET}', 0, 0 FROM unnest(ARRAY[${src}, ${dst}]) AS a ORDER BY a ON CONFLICT (ledger, address, asset) DO UPDATE SET input = ledger_volumes.input RETURNING address, input, output;
WITH v AS (UPDATE ledger_volumes SET input = input + CASE WHEN address = ${dst} THEN 1 ELSE 0 END, output = output + CASE WHEN address = ${src} THEN 1 ELSE 0 END WHERE ledger = ${l} AND asset = '${ASSET}' AND address IN (${src}, ${dst}) RETURNING 1) INSERT INTO ledger_accounts (ledger, address) VALUES (${l}, ${src}), (${l}, ${dst}) ON CONFLICT DO NOTHING;
WITH n AS (UPDATE ledgers SET next_txid = next_txid + 1 WHERE name = ${l} RETURNING next_txid - 1 AS id) INSERT INTO ledger_transactions (ledger, id, timestamp, postings, metadata, pre_commit_volumes, post_commit_volumes, sources, destinations) SELECT ${l}, n.id, now(), ('[{"source":"' || ${src} || '","destination":"' || ${dst} || '","amount":1,"asset":"${ASSET}"}]')::json, '{}', ('{"' || ${src} || '":{}}')::json, ('{"' || ${dst} || '":{}}')::json, ARRAY[${src}], ARRAY[${dst}] FROM n;
WITH e AS (INSERT INTO events_outbox (app, type, payload, dispatched_at) VALUES ('ledger', 'COMMITTED_TRANSACTIONS', '{"ledger":"${shape.ledger}"}', now()) RETURNING id) SELECT e.id FROM e CROSS JOIN (SELECT pg_notify('bench_floor', '')) AS n;
END;
`;
}

/** The floor with pgbench (when it is on PATH): throughput from its own report, p50/p99 from its per-transaction log. */
export async function pgbenchFloor(
  platform: BenchPlatform,
  scenario: string,
  shape: FloorShape,
  concurrency: number,
  total: number,
): Promise<Measurement> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-pgbench-'));
  try {
    fs.writeFileSync(path.join(dir, 'write.sql'), pgbenchScript(shape));
    const perClient = Math.max(1, Math.ceil(total / concurrency));
    const { stdout } = await promisify(execFile)(
      'pgbench',
      [
        '-n',
        '-f',
        path.join(dir, 'write.sql'),
        '-c',
        String(concurrency),
        '-j',
        String(Math.min(2, concurrency)),
        '-t',
        String(perClient),
        '-l',
        `--log-prefix=${path.join(dir, 'log')}`,
        platform.databaseUrl,
      ],
      { timeout: 300_000 },
    );
    const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1] ?? NaN);
    const failed = Number(/number of failed transactions: (\d+)/.exec(stdout)?.[1] ?? 0);
    const latencies = fs
      .readdirSync(dir)
      .filter((f) => f.startsWith('log'))
      .flatMap((f) =>
        fs
          .readFileSync(path.join(dir, f), 'utf8')
          .trim()
          .split('\n')
          .map((line) => Number(line.split(' ')[2]) / 1000),
      )
      .sort((a, b) => a - b);
    return {
      scenario,
      unit: 'tx/s',
      throughput: tps,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      operations: perClient * concurrency,
      errors: failed,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function hasPgbench(): Promise<boolean> {
  try {
    await promisify(execFile)('pgbench', ['--version']);
    return true;
  } catch {
    return false;
  }
}
