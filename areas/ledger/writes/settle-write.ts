import type { Posting } from '../types';
import { pairKey, type LockedRead, type VolumeMap } from '../reads/volumes';
import type { SqlStatement } from './write-statements';
import type { LedgerWrite } from './write-pipeline';

/**
 * What the write pipeline (write-pipeline.ts) carries for its callers: rows that go with a write, and a wallet hold's
 * settle, planned under the batch's locks.
 */

/**
 * Rows of a caller's that go with its write: `build` turns the accepted writes carrying it (their items and final
 * postings) into one data-modifying statement, a member of the WITH of the batch's last statement, so a batch of N
 * such writes costs no statement of its own. Pure: writes sharing one `build` (a module constant) share the statement.
 */
export interface CallerRows<T = unknown> {
  build: (done: Array<{ item: T; postings: Posting[] }>) => SqlStatement | undefined;
  item: T;
}

export const callerRows = <T>(build: CallerRows<T>['build'], item: T): CallerRows => ({ build: build as CallerRows['build'], item });

/**
 * A wallet hold's settle (confirm or void) as a write. What it posts depends on what the hold still holds and whether
 * its row is closed, known only under the batch's locks: the caller gives what it needs (the hold, its pairs, the
 * statements of its row) and a pure `plan`; the pipeline locks the pairs and the row with the batch, plans, checks
 * and commits the postings, and closes the row in the batch's last statement. Two settles of one hold never share a
 * batch (group-commit.ts), so the second sees the first committed.
 */
export interface SettleInput {
  holdId: string;
  /** The pair holding the hold's funds: what remains is its balance. */
  held: { account: string; asset: string };
  /** Every other pair the settle may post to, fixed when the hold was made. */
  pairs: Array<[string, string]>;
  metadata: Record<string, string>;
  rows: HoldRows;
  /** What to post, and whether the hold closes, for its state under the locks. Throws to refuse the settle alone. */
  plan(hold: HoldState): { postings: Posting[]; close: boolean };
}

/** A hold under the batch's locks: `remaining` is its pair's balance when open (may be negative after a forced revert), else 0. */
export interface HoldState {
  status: 'missing' | 'open' | 'closed';
  remaining: bigint;
}

/** The statements of the hold rows (wallets' hold-rows.ts), over hold ids. */
export interface HoldRows {
  /** Locks and reads the rows as `{id, closed}`, in id order; runs within the batch's volume-lock statement, after the volume rows. */
  lock(ids: string[]): SqlStatement;
  /** Closes the rows: a member of the batch's last statement. */
  close(ids: string[]): SqlStatement;
}

/** What a settle did: what the hold held under the locks, and whether it closed. Its postings are the transaction's. */
export interface Settled {
  held: bigint;
  closed: boolean;
}

/** The read of the batch's settles' hold rows, within its volume-lock statement: each hold's `closed`, into `closed`. */
export function holdReads(settles: SettleInput[], closed: Map<string, boolean>): LockedRead[] {
  return [...groupBy(settles, (s) => s.rows)].map(([rows, group]) => {
    const { sql, bindings } = rows.lock(group.map((s) => s.holdId));
    return { sql, bindings, apply: (found) => found.forEach((row) => closed.set(String(row.id), row.closed === true)) };
  });
}

/** A settle's postings (none of 0) and result, from its hold's row and balance as the batch locked them. */
export function planSettle(settle: SettleInput, closed: Map<string, boolean>, state: VolumeMap): { postings: Posting[]; settled: Settled } {
  const found = closed.get(settle.holdId);
  const status = found === undefined ? 'missing' : found ? 'closed' : 'open';
  const volume = state.get(pairKey(settle.held.account, settle.held.asset))!;
  const remaining = status === 'open' ? volume.input - volume.output : 0n;
  const { postings, close } = settle.plan({ status, remaining });
  return { postings: postings.filter((p) => p.amount > 0n), settled: { held: remaining, closed: close } };
}

/** The callers' statements of the accepted writes: one per CallerRows builder, and one closing the holds settled for good. */
export function callerStatements(done: Array<{ write: LedgerWrite; postings: Posting[]; settled?: Settled }>): SqlStatement[] {
  const withRows = done.filter((d) => d.write.rows);
  const built = [...groupBy(withRows, (d) => d.write.rows!.build)].flatMap(
    ([build, group]) => build(group.map((d) => ({ item: d.write.rows!.item, postings: d.postings }))) ?? [],
  );
  const closing = done.filter((d) => d.settled?.closed);
  const closed = [...groupBy(closing, (d) => d.write.settle!.rows)].map(([rows, group]) => rows.close(group.map((d) => d.write.settle!.holdId)));
  return [...built, ...closed];
}

function groupBy<T, K>(items: T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}
