import type { Knex } from 'knex';
import type { Db } from '../../../db/knex';
import { chainHash, type LogRow } from './log';
import { isCheckpointId, loadLogKeys, signCheckpoint } from './log-signing';

interface ChainRow {
  hashed_through: string;
  last_hash: Buffer | null;
  checkpoints_from: string;
}

/**
 * Hashes the next logs of one ledger, in id order, up to `limit`. It stops before the first missing id: ids are
 * allocated under the ledger row lock and a rollback gives its number back, so a missing id is a write still in
 * flight, whose log will appear, and the chain waits for it rather than skip it.
 * One hasher per ledger at a time across every process: the ledger's chain row is locked with SKIP LOCKED, so a second
 * hasher moves on instead of waiting, and a writer never touches that row.
 * Every CHECKPOINT_EVERY logs it signs the chain head with the platform's current key (log-signing.ts), in the same
 * transaction as the hashes, so a stored hash at a checkpoint id always has its signature.
 * The hashes are inserted into `ledger_log_hashes` (narrow, insert-only), never written into the log rows: a log row is
 * written once, by its change, so hashing rewrites no wide row and leaves no dead tuple.
 * @returns how many logs were hashed
 */
export async function hashLedgerLogs(db: Db, ledger: string, limit = 1000): Promise<number> {
  const [key] = await loadLogKeys(db);
  return db.transaction(async (trx: Knex.Transaction) => {
    await trx.raw('INSERT INTO ledger_log_chain (ledger) VALUES (?) ON CONFLICT (ledger) DO NOTHING', [ledger]);
    const chain = (await trx('ledger_log_chain')
      .where({ ledger })
      .forUpdate()
      .skipLocked()
      .first('hashed_through', 'last_hash', 'checkpoints_from')) as ChainRow | undefined;
    if (!chain) return 0;
    const rows = (await trx('ledger_logs')
      .where({ ledger })
      .where('id', '>', chain.hashed_through)
      .orderBy('id')
      .limit(limit)
      .select('id', 'type', 'date', 'data')) as LogRow[];
    let previous = chain.last_hash;
    let expected = BigInt(chain.hashed_through) + 1n;
    const ids: string[] = [];
    const hashes: string[] = [];
    const checkpoints: Array<{ ledger: string; log_id: string; key_id: string; signature: Buffer }> = [];
    const signFrom = BigInt(chain.checkpoints_from);
    for (const row of rows) {
      const id = BigInt(row.id);
      if (id !== expected) break;
      previous = chainHash(previous, row);
      ids.push(row.id);
      hashes.push(previous.toString('hex'));
      if (isCheckpointId(id) && id >= signFrom) {
        const { keyId, signature } = signCheckpoint(key, id, previous.toString('base64'));
        checkpoints.push({ ledger, log_id: row.id, key_id: keyId, signature: Buffer.from(signature, 'base64') });
      }
      expected += 1n;
    }
    if (ids.length === 0) return 0;
    // No ON CONFLICT: ids above hashed_through were never hashed (the chain row is locked, and moves with the hashes),
    // so a conflict is a broken invariant, which fails the pass rather than keep a hash the chain did not compute.
    await trx.raw(
      `INSERT INTO ledger_log_hashes (ledger, id, hash) SELECT ?, u.id, decode(u.hash, 'hex') FROM unnest(?::bigint[], ?::text[]) AS u(id, hash)`,
      [ledger, ids, hashes],
    );
    if (checkpoints.length > 0) await trx('ledger_log_checkpoints').insert(checkpoints).onConflict(['ledger', 'log_id']).ignore();
    await trx('ledger_log_chain')
      .where({ ledger })
      .update({ hashed_through: ids[ids.length - 1], last_hash: previous });
    return ids.length;
  });
}

/**
 * Each ledger's logs past its chain position, and its features: the ledger's log counter against the chain's
 * `hashed_through`, one row of each per ledger, so neither finding the work nor measuring it reads a log. A write bumps
 * `next_log_id` in the transaction that inserts its log, under the ledger row lock it holds to its commit: the
 * committed counter counts exactly the committed logs. Columns: name, features, pending.
 */
export const UNHASHED_LOGS_SQL = `SELECT l.name, l.features, l.next_log_id - 1 - coalesce(c.hashed_through, -1) AS pending
  FROM ledgers l LEFT JOIN ledger_log_chain c ON c.ledger = l.name`;

/** UNHASHED_LOGS_SQL of the hashed ledgers (not HASH_LOGS DISABLED): the hasher's work. */
const PENDING_SQL = `SELECT name, pending FROM (${UNHASHED_LOGS_SQL}) u WHERE features->>'HASH_LOGS' IS DISTINCT FROM 'DISABLED'`;

/**
 * One pass over every ledger with unhashed logs (not those created with HASH_LOGS DISABLED), found from the ledgers
 * and their chain rows (PENDING_SQL) rather than from the logs: a DISABLED ledger's logs stay unhashed for ever, and
 * the work list costs one row per ledger however many logs wait.
 * @returns how many logs were hashed (0: caught up, or waiting on a gap)
 */
export async function hashPendingLogs(db: Db, limit = 1000): Promise<number> {
  const { rows } = await db.raw(`SELECT name FROM (${PENDING_SQL}) p WHERE pending > 0`);
  let hashed = 0;
  for (const { name } of rows as Array<{ name: string }>) hashed += await hashLedgerLogs(db, name, limit);
  return hashed;
}

/**
 * The chain's lag: logs of hashed ledgers (not HASH_LOGS DISABLED) not hashed yet. A count rather than an age: an
 * imported log keeps its original date. Read at each scrape of the worker, from one row per ledger (PENDING_SQL).
 */
export async function logHashLag(db: Db): Promise<number> {
  const { rows } = await db.raw(`SELECT coalesce(sum(pending), 0)::int AS logs FROM (${PENDING_SQL}) p`);
  return rows[0].logs;
}
