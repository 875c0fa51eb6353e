import type { Knex } from 'knex';
import { settleTransactionsBefore } from '../../../db/settle';
import { validationError } from '../../../lib/errors';
import { ACCOUNT_FIELDS, accountFields, compileLedgerQuery } from './ledger-query';
import { assertLedgerExists } from '../ledgers';
import { addressPatternRegex } from '../rules/rules';
import type { Executor } from '../types';

export interface PointInTime {
  /** The instant: postings of transactions dated at or before it count. */
  pit: Date;
  /** Date transactions by when they were inserted rather than by their (possibly backdated) effective timestamp. */
  useInsertionDate?: boolean;
}

/**
 * Sum of balances per asset over the matching accounts as they were at `pit`, replayed from the postings themselves
 * (current volumes cannot answer it: a backdated transaction changes every balance after its date). Formance's
 * `GET /v2/{ledger}/aggregate/balances?pit=...`: by effective timestamp, or by insertion date with useInsertionDate.
 *
 * The accounts are selected by address and `query` as listAccounts selects them today (address, metadata; a
 * `balance` field compares the current balance). A `pit` in the past is exact whenever the read runs: the read first
 * waits for the database transactions begun by then (db/settle.ts), since those are the only ones that can still
 * commit a transaction dated at or before it.
 * @throws ApiError LEDGER_NOT_FOUND, VALIDATION (query, pit), SERVICE_UNAVAILABLE (a writer open since before pit)
 */
export async function aggregateBalancesAt(
  db: Executor,
  ledger: string,
  filters: { address?: string; query?: string },
  at: PointInTime,
): Promise<Record<string, bigint>> {
  if (Number.isNaN(at.pit.getTime())) throw validationError('pit: invalid date');
  const condition = compileLedgerQuery(filters.query, accountFields('a.ledger', 'a.address', 'a.metadata'), ACCOUNT_FIELDS);
  await assertLedgerExists(db, ledger);
  if (at.pit.getTime() <= Date.now()) await settleTransactionsBefore(db, at.pit);

  const accountConditions: string[] = [];
  const bindings: Knex.RawBinding[] = [ledger];
  if (filters.address) {
    const regex = addressPatternRegex(filters.address);
    accountConditions.push(regex ? 'a.address ~ ?' : 'a.address = ?');
    bindings.push(regex ?? filters.address);
  }
  if (condition) {
    accountConditions.push(condition.sql);
    bindings.push(...(condition.bindings as Knex.RawBinding[]));
  }
  const dateColumn = at.useInsertionDate ? 't.inserted_at' : 't.timestamp';
  bindings.push(ledger, at.pit);
  // Each posting moves its amount out of its source and into its destination; only moves of selected accounts count.
  const { rows } = await db.raw(
    `WITH selected AS MATERIALIZED (
       SELECT a.address FROM ledger_accounts a WHERE a.ledger = ?${accountConditions.map((c) => ` AND ${c}`).join('')}
     ), moves AS MATERIALIZED (
       SELECT p.v->>'asset' AS asset, p.v->>'source' AS source, p.v->>'destination' AS destination, (p.v->>'amount')::numeric AS amount
       FROM ledger_transactions t CROSS JOIN LATERAL json_array_elements(t.postings) AS p(v)
       WHERE t.ledger = ? AND ${dateColumn} <= ?
     )
     SELECT asset, sum(amount)::text AS balance FROM (
       SELECT m.asset, m.amount FROM moves m JOIN selected s ON s.address = m.destination
       UNION ALL
       SELECT m.asset, -m.amount FROM moves m JOIN selected s ON s.address = m.source
     ) x GROUP BY asset ORDER BY asset`,
    bindings,
  );
  return Object.fromEntries((rows as Array<{ asset: string; balance: string }>).map((r) => [r.asset, BigInt(r.balance)]));
}

/**
 * Checks a Formance account filter (the JSON text of `query` on the account lists: ACCOUNT_FIELDS) as the ledger
 * would compile it, so a component that stores one for later reads refuses it up front.
 * @throws ApiError VALIDATION, its message starting with `query:`
 */
export function assertAccountQuery(query: string): void {
  compileLedgerQuery(query, accountFields('a.ledger', 'a.address', 'a.metadata'), ACCOUNT_FIELDS);
}
