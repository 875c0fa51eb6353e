import type { Knex } from 'knex';
import type { CreateTransactionInput, LedgerTransaction, Posting } from './types';
import { lockVolumes, pairKey, type LockedRead, type VolumeMap } from './volumes';

/**
 * What a caller of the ledger (wallets) adds to its write so the write can join a batch and still be one atomic change
 * with the caller's own rows. Both the batched and the single path run them, in the write's database transaction.
 */
export interface WriteHooks {
  /** Pairs locked with the write's volumes, before `prepare` (a script's reads, a hold's accounts). */
  lockFirst?: Array<[string, string]>;
  /** Writes sharing a key never share a batch: each must see the one before it committed (two settles of one hold). */
  exclusiveKey?: string;
  /**
   * Runs before the write is checked, in txid order: may lock the caller's rows, read locked balances (those of this
   * batch's earlier writes included), and return the request to commit instead of the one given. Throwing refuses
   * this write alone, so it must not write anything.
   */
  prepare?: (trx: Knex.Transaction, balance: (address: string, asset: string) => Promise<bigint>) => Promise<CreateTransactionInput | undefined>;
  /** Runs once the write has its txid: the caller's rows that go with it. Throwing fails the whole batch, which is retried one write at a time. */
  finish?: (trx: Knex.Transaction, transaction: LedgerTransaction) => Promise<void>;
  /** Steps this write shares with the batch's other writes carrying the same SharedHooks (see shareHooks). */
  shared?: { hooks: SharedHooks<unknown>; item: unknown };
}

/**
 * A caller's steps run once per batch for all its writes that carry them (the same object, a module constant), so a
 * batch of N wallet writes reads or writes the caller's rows with one statement instead of N. `item` is each write's
 * own state, shared with its prepare and finish hooks. The single path runs them with a batch of one, in the same places.
 */
export interface SharedHooks<T> {
  /**
   * Reads (and may lock) the caller's rows of every item, once the batch's volume rows are locked and before any
   * prepare: a SELECT the batch runs inside its volume-lock statement, after those locks (see lockVolumes), so it costs
   * no round trip of its own; `apply` gets its rows. It sees the rows as the first prepare would: a write of the batch
   * changes the caller's rows only in its last statement, and exclusive keys keep two writes of one row out of a batch.
   */
  load?: (items: T[]) => LockedRead;
  /**
   * The caller's rows that go with the batch's accepted writes, as one data-modifying SQL statement over their items and
   * final postings (no RETURNING needed). The batch runs it as a member of the WITH of its last statement, so it costs
   * no round trip of its own; the single path runs it alone. Its error fails the batch. Undefined: nothing to write.
   */
  write?: (done: Array<{ item: T; postings: Posting[] }>) => SqlStatement | undefined;
}

export interface SqlStatement {
  sql: string;
  bindings: Knex.RawBinding[];
}

/** A write's share of `hooks`, with its own `item`. */
export const shareHooks = <T>(hooks: SharedHooks<T>, item: T): NonNullable<WriteHooks['shared']> => ({ hooks: hooks as SharedHooks<unknown>, item });

/** The read of each distinct SharedHooks' `load` over the items of the writes carrying it. */
export function sharedReads(hooks: Array<WriteHooks | undefined>): LockedRead[] {
  return [...groupShared(hooks.map((h) => h?.shared))].flatMap(([shared, items]) => (shared.load ? [shared.load(items)] : []));
}

/** The statement of each distinct SharedHooks' `write` over the accepted writes carrying it. */
export function sharedStatements(done: Array<{ hooks: WriteHooks | undefined; postings: Posting[] }>): SqlStatement[] {
  const groups = new Map<SharedHooks<unknown>, Array<{ item: unknown; postings: Posting[] }>>();
  for (const { hooks, postings } of done) {
    if (!hooks?.shared?.hooks.write) continue;
    const list = groups.get(hooks.shared.hooks) ?? [];
    list.push({ item: hooks.shared.item, postings });
    groups.set(hooks.shared.hooks, list);
  }
  return [...groups].flatMap(([shared, list]) => shared.write!(list) ?? []);
}

function groupShared(shares: Array<WriteHooks['shared']>): Map<SharedHooks<unknown>, unknown[]> {
  const groups = new Map<SharedHooks<unknown>, unknown[]>();
  for (const share of shares) {
    if (!share) continue;
    const items = groups.get(share.hooks) ?? [];
    items.push(share.item);
    groups.set(share.hooks, items);
  }
  return groups;
}

/**
 * A locked balance for WriteHooks.prepare. In a batch only pairs locked with the batch's sorted lock can be read (a
 * pair locked later would be out of order, and its row would outlive a refused write); the single path may lock one.
 */
export function lockedBalance(trx: Knex.Transaction, ledger: string, state: VolumeMap, options: { lockMissing: boolean }) {
  return async (address: string, asset: string): Promise<bigint> => {
    if (options.lockMissing) await lockVolumes(trx, ledger, [[address, asset]], state);
    const volume = state.get(pairKey(address, asset));
    if (!volume) throw new Error(`write hook read ${address} ${asset}, which is not among its lockFirst pairs`);
    return volume.input - volume.output;
  };
}
