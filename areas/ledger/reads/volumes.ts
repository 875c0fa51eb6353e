import type { Knex } from 'knex';
import { ApiError } from '../../../lib/errors';
import { WORLD, type Posting, type Volume, type VolumesByAccount } from '../types';

/** Current input/output of (account, asset) pairs, keyed by `pairKey`. */
export type VolumeMap = Map<string, { address: string; asset: string; input: bigint; output: bigint }>;

export const pairKey = (address: string, asset: string): string => `${address}\u0000${asset}`;

/** Deterministic order for every writer: address, then asset, as JS compares strings (the same in every process). */
function sortPairs(pairs: Iterable<[string, string]>): Array<[string, string]> {
  const unique = new Map<string, [string, string]>();
  for (const [address, asset] of pairs) unique.set(pairKey(address, asset), [address, asset]);
  return [...unique.values()].sort(([a1, s1], [a2, s2]) => (a1 < a2 ? -1 : a1 > a2 ? 1 : s1 < s2 ? -1 : s1 > s2 ? 1 : 0));
}

/**
 * A SELECT run inside lockVolumes' statement once its locks are taken (it may lock rows of its own with FOR UPDATE, which
 * then come after the volume rows in every writer's order). Its `?` bindings are `bindings`; `apply` gets its rows.
 */
export interface LockedRead {
  sql: string;
  bindings: Knex.RawBinding[];
  apply(rows: Array<Record<string, unknown>>): void;
}

/**
 * Creates missing volume rows and locks all of them, in one statement, in sorted order. The insert processes the rows
 * in the order given, so two writers sharing accounts queue on the first shared row instead of deadlocking; the no-op
 * DO UPDATE is what takes the row lock on existing rows and returns their current values.
 * `reads` run in the same statement, each held back until every volume row is locked (its one-time filter needs all
 * of them), and, with FOR UPDATE, return the latest committed version of the rows they lock, as a statement of their
 * own after the locks would; alone when there is nothing left to lock.
 */
export async function lockVolumes(
  trx: Knex.Transaction,
  ledger: string,
  pairs: Iterable<[string, string]>,
  into: VolumeMap = new Map(),
  reads: LockedRead[] = [],
): Promise<VolumeMap> {
  const sorted = sortPairs(pairs).filter(([address, asset]) => !into.has(pairKey(address, asset)));
  if (sorted.length === 0) {
    for (const read of reads) read.apply((await trx.raw(read.sql, read.bindings)).rows);
    return into;
  }
  const lock = `INSERT INTO ledger_volumes (ledger, address, asset, input, output)
     SELECT ?, t.address, t.asset, 0, 0 FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS t(address, asset, n) ORDER BY t.n
     ON CONFLICT (ledger, address, asset) DO UPDATE SET input = ledger_volumes.input
     RETURNING address, asset, input::text AS input, output::text AS output`;
  const bindings: Knex.RawBinding[] = [ledger, sorted.map((p) => p[0]), sorted.map((p) => p[1])];
  const sql =
    reads.length === 0
      ? lock
      : `WITH l AS (${lock})${reads.map((read, i) => `, r${i} AS (SELECT * FROM (${read.sql}) AS r WHERE (SELECT count(*) FROM l) >= 0)`).join('')}
         SELECT address, asset, input, output, NULL::int AS read, NULL::json AS row FROM l
         ${reads.map((_, i) => `UNION ALL SELECT NULL, NULL, NULL, NULL, ${i}, to_json(r${i}) FROM r${i}`).join(' ')}`;
  const result = await trx.raw(sql, [...bindings, ...reads.flatMap((read) => read.bindings)]);
  const readRows: Array<Array<Record<string, unknown>>> = reads.map(() => []);
  for (const row of result.rows as Array<{
    address: string;
    asset: string;
    input: string;
    output: string;
    read?: number | null;
    row?: Record<string, unknown>;
  }>) {
    if (row.read !== null && row.read !== undefined) readRows[row.read].push(row.row!);
    else into.set(pairKey(row.address, row.asset), { address: row.address, asset: row.asset, input: BigInt(row.input), output: BigInt(row.output) });
  }
  reads.forEach((read, i) => read.apply(readRows[i]));
  return into;
}

/** An unlocked read of one balance (Numscript's first, speculative run). */
export async function readBalance(db: Knex | Knex.Transaction, ledger: string, address: string, asset: string): Promise<bigint> {
  const row = await db('ledger_volumes').where({ ledger, address, asset }).first(db.raw('(input - output)::text AS balance'));
  return row ? BigInt(row.balance) : 0n;
}

/**
 * The balances of `address` in every scale of `baseAsset` (`EUR`, `EUR/2`, `EUR/3`…) that it has a volume row for,
 * keyed by asset: Numscript's asset scaling (getScaledBalances). Unlocked; the caller locks what it then relies on.
 * A prefix comparison rather than LIKE: `_` in an asset (`USD_CENTS`) is a LIKE wildcard.
 */
export async function readScaledBalances(
  db: Knex | Knex.Transaction,
  ledger: string,
  address: string,
  baseAsset: string,
): Promise<Record<string, bigint>> {
  const rows: Array<{ asset: string; balance: string }> = await db('ledger_volumes')
    .where({ ledger, address })
    .where((q) =>
      q
        .where('asset', baseAsset)
        .orWhereRaw(`left(asset, ?) = ? AND substr(asset, ?) ~ '^[0-9]+$'`, [baseAsset.length + 1, `${baseAsset}/`, baseAsset.length + 2]),
    )
    .select('asset', db.raw('(input - output)::text AS balance'));
  return Object.fromEntries(rows.map((r) => [r.asset, BigInt(r.balance)]));
}

const volume = (input: bigint, output: bigint): Volume => ({ input, output, balance: input - output });

/**
 * Applies postings to locked volumes, in order, and returns the pre- and post-commit volumes of the touched pairs.
 * With `checkFunds`, each non-world source must stay >= 0 after its own posting, as Formance does when it compiles
 * plain postings to one `send` each (so a posting may spend what an earlier posting of the same transaction brought).
 * @throws ApiError INSUFFICIENT_FUND
 */
export function applyPostings(
  locked: VolumeMap,
  postings: Posting[],
  checkFunds: boolean,
): { pre: VolumesByAccount; post: VolumesByAccount; changed: VolumeMap } {
  const pre: VolumesByAccount = {};
  const changed: VolumeMap = new Map();
  const current = (address: string, asset: string) => {
    const key = pairKey(address, asset);
    let entry = changed.get(key);
    if (!entry) {
      const base = locked.get(key);
      if (!base) throw new Error(`volume row ${address}/${asset} was not locked before use`);
      entry = { ...base };
      changed.set(key, entry);
      (pre[address] ??= {})[asset] = volume(base.input, base.output);
    }
    return entry;
  };
  postings.forEach((p, index) => {
    const source = current(p.source, p.asset);
    const destination = current(p.destination, p.asset);
    source.output += p.amount;
    destination.input += p.amount;
    if (checkFunds && p.source !== WORLD && source.input - source.output < 0n) {
      // The same facts as a script's refusal (numscript's INSUFFICIENT_FUND details), so a client reads one shape.
      const before = source.input - source.output + p.amount;
      const available = before > 0n ? before : 0n;
      throw new ApiError(
        'INSUFFICIENT_FUND',
        `account "${p.source}" has insufficient funds for posting ${index}: needed ${p.asset} ${p.amount}, available ${p.asset} ${available}`,
        { details: { account: p.source, accounts: [p.source], asset: p.asset, needed: p.amount.toString(), available: available.toString() } },
      );
    }
  });
  const post: VolumesByAccount = {};
  for (const entry of changed.values()) (post[entry.address] ??= {})[entry.asset] = volume(entry.input, entry.output);
  return { pre, post, changed };
}
