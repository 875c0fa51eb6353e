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
    await trx.raw(
      `UPDATE ledger_logs l SET hash = decode(u.hash, 'hex') FROM unnest(?::bigint[], ?::text[]) AS u(id, hash) WHERE l.ledger = ? AND l.id = u.id`,
      [ids, hashes, ledger],
    );
    if (checkpoints.length > 0) await trx('ledger_log_checkpoints').insert(checkpoints).onConflict(['ledger', 'log_id']).ignore();
    await trx('ledger_log_chain')
      .where({ ledger })
      .update({ hashed_through: ids[ids.length - 1], last_hash: previous });
    return ids.length;
  });
}

/**
 * One pass over every ledger with unhashed logs (not those created with HASH_LOGS DISABLED). Driven from the ledgers:
 * a DISABLED ledger's logs stay unhashed for ever, so a scan of the unhashed-logs index would grow with them at every
 * pass, while one probe of that index per hashed ledger does not.
 * @returns how many logs were hashed (0: caught up, or waiting on a gap)
 */
export async function hashPendingLogs(db: Db, limit = 1000): Promise<number> {
  const { rows } = await db.raw(
    `SELECT l.name FROM ledgers l
      WHERE l.features->>'HASH_LOGS' IS DISTINCT FROM 'DISABLED'
        AND EXISTS (SELECT 1 FROM ledger_logs g WHERE g.ledger = l.name AND g.hash IS NULL)`,
  );
  let hashed = 0;
  for (const { name } of rows as Array<{ name: string }>) hashed += await hashLedgerLogs(db, name, limit);
  return hashed;
}

/**
 * The chain's lag: logs of hashed ledgers (not HASH_LOGS DISABLED) not hashed yet. A count rather than an age: an
 * imported log keeps its original date. One probe of the unhashed-logs index, read at each scrape of the worker.
 */
export async function logHashLag(db: Db): Promise<number> {
  const { rows } = await db.raw(
    `SELECT count(*)::int AS logs FROM ledger_logs g JOIN ledgers l ON l.name = g.ledger
      WHERE g.hash IS NULL AND l.features->>'HASH_LOGS' IS DISTINCT FROM 'DISABLED'`,
  );
  return rows[0].logs;
}
