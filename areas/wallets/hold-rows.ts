import { notFound } from '../../lib/errors';
import { stringifyJson } from '../../lib/json';
import type { Executor } from '../../db/knex';
import type { HoldRows, Posting, SqlStatement } from '../ledger';
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
 * settle can lock its accounts without reading its row first; its closing is read under the locks (holdRows). Only
 * rows read or committed are remembered: an unknown id is read every time and stays a 404.
 */
const KNOWN_HOLDS_MAX = 10_000;
const knownHolds = new Map<string, SettleTerms>();

/** What a settle needs of a hold: its description and metadata, up to a request body each, are not kept in memory. */
export type SettleTerms = Omit<HoldTerms, 'description' | 'metadata'>;

export function rememberHold(terms: SettleTerms): void {
  if (knownHolds.size >= KNOWN_HOLDS_MAX) knownHolds.delete(knownHolds.keys().next().value as string);
  // A copy of the fields a settle reads, so the memory never holds (or shares) the caller's other objects.
  const { id, wallet_id, asset, original_amount, destination, sources } = terms;
  knownHolds.set(id, { id, wallet_id, asset, original_amount, destination, sources });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A hold's terms, from memory or its row; `id` in any case (PostgreSQL's uuid ignores it). @throws ApiError NOT_FOUND */
export async function holdTerms(db: Executor, id: string): Promise<SettleTerms> {
  const canonical = UUID.test(id) ? id.toLowerCase() : undefined;
  const known = canonical === undefined ? undefined : knownHolds.get(canonical);
  if (known) return known;
  const row: SettleTerms | undefined =
    canonical === undefined
      ? undefined
      : await db('wallet_holds').where({ id: canonical }).first('id', 'wallet_id', 'asset', 'original_amount', 'destination', 'sources');
  if (!row) throw notFound(`hold "${id}" not found`);
  rememberHold(row);
  return row;
}

/** What a hold's transaction took from each source account: what a settle gives back to each, at most. */
export const holdSources = (postings: Posting[]): HoldTerms['sources'] =>
  postings.filter((p) => p.amount > 0n).map((p) => ({ account: p.source, amount: p.amount.toString() }));

/** A pending debit's hold; its `sources` are its transaction's (holdSources), known once the script ran. */
export type NewHold = Omit<HoldTerms, 'sources'>;

/** Writes the holds of a batch's pending debits, with the batch's transactions (CallerRows' build). */
export function insertHolds(done: Array<{ item: NewHold; postings: Posting[] }>): SqlStatement {
  const items = done.map((d) => d.item);
  return {
    sql: `INSERT INTO wallet_holds (id, wallet_id, asset, original_amount, description, metadata, destination, sources)
          SELECT * FROM unnest(?::uuid[], ?::uuid[], ?::text[], ?::numeric[], ?::text[], ?::jsonb[], ?::jsonb[], ?::jsonb[])`,
    bindings: [
      items.map((h) => h.id),
      items.map((h) => h.wallet_id),
      items.map((h) => h.asset),
      items.map((h) => h.original_amount),
      items.map((h) => h.description),
      items.map((h) => stringifyJson(h.metadata)),
      items.map((h) => stringifyJson(h.destination)),
      done.map((d) => stringifyJson(holdSources(d.postings))),
    ],
  };
}

/**
 * The hold rows' statements of a settle (SettleInput): the rows are locked after the hold accounts' volume rows (which
 * every settle of a hold locks first, so two settles of one hold never wait on each other here in opposite orders),
 * within the batch's lock statement; those that settled for good are closed within its last.
 */
export const holdRows: HoldRows = {
  lock: (ids) => ({
    sql: `SELECT id::text AS id, closed_at IS NOT NULL AS closed FROM wallet_holds WHERE id = ANY(?::uuid[]) ORDER BY id FOR UPDATE`,
    bindings: [ids],
  }),
  close: (ids) => ({ sql: `UPDATE wallet_holds SET closed_at = now() WHERE id = ANY(?::uuid[])`, bindings: [ids] }),
};
