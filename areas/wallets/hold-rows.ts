import type { Knex } from 'knex';
import { notFound } from '../../lib/errors';
import { stringifyJson } from '../../lib/json';
import type { Executor } from '../../db/knex';
import type { SharedHooks } from '../ledger';
import type { Subject } from './chart';

/** What a hold row holds for ever: everything but its closing. */
export interface HoldTerms {
  id: string;
  wallet_id: string;
  asset: string;
  original_amount: string;
  description: string;
  metadata: Record<string, string>;
  destination: Subject;
  sources: Array<{ account: string; amount: string | number | bigint }>;
}

/**
 * The terms of the holds this process created or read lately. A hold is never deleted and its terms never change, so a
 * settle can lock its accounts without reading its row first; its closing is read under the locks (settleRows). Only
 * rows read or committed are remembered: an unknown id is read every time and stays a 404.
 */
const KNOWN_HOLDS_MAX = 10_000;
const knownHolds = new Map<string, HoldTerms>();

export function rememberHold(terms: HoldTerms): void {
  if (knownHolds.size >= KNOWN_HOLDS_MAX) knownHolds.delete(knownHolds.keys().next().value as string);
  knownHolds.set(terms.id, terms);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A hold's terms, from memory or its row; `id` in any case (PostgreSQL's uuid ignores it). @throws ApiError NOT_FOUND */
export async function holdTerms(db: Executor, id: string): Promise<HoldTerms> {
  const canonical = UUID.test(id) ? id.toLowerCase() : undefined;
  const known = canonical === undefined ? undefined : knownHolds.get(canonical);
  if (known) return known;
  const row = canonical === undefined ? undefined : await db<HoldTerms>('wallet_holds').where({ id: canonical }).first('id', 'wallet_id', 'asset', 'original_amount', 'description', 'metadata', 'destination', 'sources');
  if (!row) throw notFound(`hold "${id}" not found`);
  rememberHold(row);
  return row;
}

/** A pending debit's hold, its `sources` filled in by insertHolds from what its transaction took from each account. */
export type NewHold = HoldTerms;

/** Writes the holds of a batch's pending debits with one statement, once their transactions have their txids. */
export const insertHolds: SharedHooks<NewHold> = {
  async finish(trx: Knex.Transaction, done) {
    const rows = done.map(({ item, transaction }) => {
      item.sources = transaction.postings.filter((p) => p.amount > 0n).map((p) => ({ account: p.source, amount: p.amount.toString() }));
      return { ...item, metadata: stringifyJson(item.metadata), destination: stringifyJson(item.destination), sources: stringifyJson(item.sources) };
    });
    await trx('wallet_holds').insert(rows);
  },
};

/** A settle's view of its hold row: whether it exists and is closed (read under lock by load), and whether this settle closes it. */
export interface SettleItem {
  id: string;
  state?: 'missing' | 'open' | 'closed';
  close: boolean;
}

/**
 * Locks and reads the hold rows of a batch's settles in one statement, after the hold accounts' volume rows (which
 * every settle of a hold locks first, so two settles of one hold never wait on each other here in opposite orders),
 * and closes those that settled with another.
 */
export const settleRows: SharedHooks<SettleItem> = {
  async load(trx, items) {
    const { rows } = await trx.raw(`SELECT id::text AS id, closed_at IS NOT NULL AS closed FROM wallet_holds WHERE id = ANY(?::uuid[]) ORDER BY id FOR UPDATE`, [items.map((i) => i.id)]);
    const closed = new Map((rows as Array<{ id: string; closed: boolean }>).map((r) => [r.id, r.closed]));
    for (const item of items) {
      const state = closed.get(item.id);
      item.state = state === undefined ? 'missing' : state ? 'closed' : 'open';
      item.close = false;
    }
  },
  async finish(trx, done) {
    const closing = done.filter(({ item }) => item.close).map(({ item }) => item.id);
    if (closing.length > 0) await trx.raw(`UPDATE wallet_holds SET closed_at = now() WHERE id = ANY(?::uuid[])`, [closing]);
  },
};
