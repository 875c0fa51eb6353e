import type { Knex } from 'knex';
import { createDb, type Db } from '../../../db/knex';
import * as ledgerTables from '../../../db/migrations/003-ledger';
import * as platformSecrets from '../../../db/migrations/009-platform-secrets';
import * as ledgerLogs from '../../../db/migrations/011-ledger-logs';
import * as v2Surface from '../../../db/migrations/015-ledger-v2-surface';
import * as checkpoints from '../../../db/migrations/027-ledger-log-checkpoints';
import * as logHashes from '../../../db/migrations/033-ledger-log-hashes';
import { chainHash } from '../../../areas/ledger/logs/log';
import { hashPendingLogs, logHashLag } from '../../../areas/ledger/logs/log-hasher';
import { api } from '../../support/http';
import { newLedger, posting, postTransaction } from '../../support/ledger';
import { hashedUpTo } from '../../support/ledger-logs';
import { migrationSchema } from '../../support/migration-schema';

type LogRow = { id: string; type: string; date: Date; data: unknown };

/** The chain recomputed from the log rows, base64 by id. */
function expectedChain(logs: LogRow[]): Map<number, string> {
  const chain = new Map<number, string>();
  let previous: Buffer | null = null;
  for (const log of logs) {
    previous = chainHash(previous, log);
    chain.set(Number(log.id), previous.toString('base64'));
  }
  return chain;
}

/** Each log row's xmin and ctid: both change when the row is updated. */
const rowVersions = async (db: Knex, ledger: string) =>
  (await db.raw(`SELECT id::int AS id, xmin::text AS xmin, ctid::text AS ctid FROM ledger_logs WHERE ledger = ? ORDER BY id`, [ledger])).rows;

const storedHashes = async (db: Knex, ledger: string): Promise<Array<[number, string]>> =>
  (await db('ledger_log_hashes').where({ ledger }).orderBy('id').select('id', 'hash')).map((r: { id: string; hash: Buffer }) => [
    Number(r.id),
    r.hash.toString('base64'),
  ]);

/**
 * Migration 033 moves the hashes out of `ledger_logs` into `ledger_log_hashes`; it runs here in a schema of its own,
 * over rows as the previous release wrote them.
 */
describe('migration 033: log hashes in a table of their own', () => {
  const { schema, db: connection } = migrationSchema('migration_033', async (db) => {
    await ledgerTables.up(db);
    await ledgerLogs.up(db);
  });
  let db: Knex;
  beforeAll(() => {
    db = connection();
  });
  const h = (n: number) => Buffer.alloc(32, n);
  const unhashedIndex = async () =>
    (await db.raw(`SELECT indexname FROM pg_indexes WHERE schemaname = ? AND indexname = 'ledger_logs_unhashed'`, [schema])).rows;
  const hashColumn = async () =>
    (
      await db.raw(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = 'ledger_logs' AND column_name = 'hash'`,
        [schema],
      )
    ).rows;

  it('moves the stored hashes, then drops the column and its partial index', async () => {
    await db('ledgers').insert({ name: 'l', next_log_id: 3 });
    await db('ledger_logs').insert(
      [0, 1, 2].map((id) => ({ ledger: 'l', id, type: 'SET_METADATA', date: new Date(), data: { n: id }, hash: id < 2 ? h(id + 1) : null })),
    );
    await logHashes.up(db);

    expect(await storedHashes(db, 'l')).toEqual([
      [0, h(1).toString('base64')],
      [1, h(2).toString('base64')],
    ]);
    expect(await hashColumn()).toEqual([]);
    expect(await unhashedIndex()).toEqual([]);
    expect(await db('ledger_logs').where({ ledger: 'l' }).orderBy('id').pluck('id')).toEqual(['0', '1', '2']);
  });

  it('goes back to the column as it was', async () => {
    await logHashes.down(db);
    const logs = await db('ledger_logs').where({ ledger: 'l' }).orderBy('id').select('id', 'hash');
    expect(logs.map((l: { id: string; hash: Buffer | null }) => [l.id, l.hash?.toString('base64') ?? null])).toEqual([
      ['0', h(1).toString('base64')],
      ['1', h(2).toString('base64')],
      ['2', null],
    ]);
    expect(await unhashedIndex()).toHaveLength(1);
    expect((await db.raw(`SELECT to_regclass(?) AS t`, [`${schema}.ledger_log_hashes`])).rows[0].t).toBeNull();
  });
});

/**
 * The hasher alone, in a schema of its own (the platform's worker hashes the shared tables as soon as a log commits):
 * what it writes, where it stops, and what it never touches.
 */
describe('the log hasher, on tables of its own', () => {
  const { db: connection } = migrationSchema('log_hasher', async (db) => {
    await ledgerTables.up(db);
    await platformSecrets.up(db);
    await ledgerLogs.up(db);
    await v2Surface.up(db);
    await checkpoints.up(db);
    await logHashes.up(db);
  });
  let db: Knex;
  beforeAll(() => {
    db = connection();
  });

  const addLogs = (ledger: string, ids: number[]) =>
    db('ledger_logs').insert(
      ids.map((id) => ({ ledger, id, type: 'SET_METADATA', date: new Date(Date.UTC(2026, 0, 1, 0, 0, id)), data: { n: id } })),
    );
  const logsOf = async (ledger: string): Promise<LogRow[]> => db('ledger_logs').where({ ledger }).orderBy('id').select('id', 'type', 'date', 'data');

  it('inserts hashes into ledger_log_hashes up to the first missing id, skips DISABLED ledgers, and never updates a log row', async () => {
    await db('ledgers').insert([
      { name: 'a', next_log_id: 5 },
      { name: 'off', next_log_id: 2, features: { HASH_LOGS: 'DISABLED' } },
    ]);
    // Log 2 of `a` is a write still in flight: its id is taken, its row not there yet.
    await addLogs('a', [0, 1, 3, 4]);
    await addLogs('off', [0, 1]);
    const before = await rowVersions(db, 'a');
    expect(await logHashLag(db)).toBe(5);

    expect(await hashPendingLogs(db)).toBe(2);
    const firstTwo = expectedChain((await logsOf('a')).slice(0, 2));
    expect(await storedHashes(db, 'a')).toEqual([...firstTwo.entries()]);
    expect(await db('ledger_log_chain').where({ ledger: 'a' }).first('hashed_through')).toEqual({ hashed_through: '1' });
    expect(await logHashLag(db)).toBe(3);
    // Waiting on the gap: the next pass hashes nothing.
    expect(await hashPendingLogs(db)).toBe(0);

    await addLogs('a', [2]);
    const withLog2 = await rowVersions(db, 'a');
    expect(await hashPendingLogs(db)).toBe(3);
    expect(await storedHashes(db, 'a')).toEqual([...expectedChain(await logsOf('a')).entries()]);
    expect(await logHashLag(db)).toBe(0);
    expect(await hashPendingLogs(db)).toBe(0);

    // The log rows are the very versions their insert wrote.
    expect(await rowVersions(db, 'a')).toEqual(withLog2);
    expect(withLog2.filter((r: { id: number }) => r.id !== 2)).toEqual(before);
    // The DISABLED ledger: no chain position, no hashes, no lag.
    expect(await storedHashes(db, 'off')).toEqual([]);
    expect(await db('ledger_log_chain').where({ ledger: 'off' }).first()).toBeUndefined();
  });
});

describe('ledger log hashes on the platform', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 2 });
  });
  afterAll(() => db.destroy());

  it('a log reads without hash until the hasher reaches it, then with the hash it inserted, its own row untouched', async () => {
    const ledger = await newLedger('log-hashes');
    // Holding the ledger's chain row keeps the worker's hasher off this ledger (it skips a locked row) without
    // holding any writer: writers never touch it.
    await db.raw('INSERT INTO ledger_log_chain (ledger) VALUES (?) ON CONFLICT (ledger) DO NOTHING', [ledger]);
    const hold = await db.transaction();
    let before: unknown;
    try {
      await hold('ledger_log_chain').where({ ledger }).forUpdate().first();
      expect((await postTransaction(ledger, { postings: [posting('world', 'users:1', 100)] })).status).toBe(200);
      expect((await api('POST', `/api/ledger/v2/${ledger}/accounts/users:1/metadata`, { body: { k: 'v' } })).status).toBe(204);
      expect((await postTransaction(ledger, { postings: [posting('users:1', 'users:2', 40)] })).status).toBe(200);

      const unhashed = await api('GET', `/api/ledger/v2/${ledger}/logs?pageSize=10`);
      expect(unhashed.status).toBe(200);
      expect(unhashed.body.cursor.data.map((l: { id: number; hash: string }) => [l.id, l.hash])).toEqual([
        [2, ''],
        [1, ''],
        [0, ''],
      ]);
      expect((await api('GET', `/api/ledger/v2/${ledger}/logs/chain`)).body.data).toMatchObject({ logs: 3, lastHashedLogId: -1, lag: 3 });
      expect(await storedHashes(db, ledger)).toEqual([]);
      // A figure over every ledger: this one's three logs are in it, whatever the others' hasher state.
      expect((await api('GET', '/api/ledger/_/metrics')).body['ledger.logs_unhashed']).toBeGreaterThanOrEqual(3);
      before = await rowVersions(db, ledger);
    } finally {
      await hold.commit();
    }

    expect(await hashedUpTo(ledger)).toMatchObject({ logs: 3, lastHashedLogId: 2, lag: 0 });
    const chain = expectedChain(await db('ledger_logs').where({ ledger }).orderBy('id').select('id', 'type', 'date', 'data'));
    expect(await storedHashes(db, ledger)).toEqual([...chain.entries()]);
    const listed = (await api('GET', `/api/ledger/v2/${ledger}/logs?pageSize=10`)).body.cursor.data;
    expect(listed.map((l: { id: number; hash: string }) => [l.id, l.hash])).toEqual([2, 1, 0].map((id) => [id, chain.get(id)]));
    expect(await rowVersions(db, ledger)).toEqual(before);
  });
});
