import type { Knex } from 'knex';
import { keysetPage, type Page, type PageRequest } from '../../../db/pagination';
import { assertLedgerExists } from '../ledgers';
import { addressField, compileLedgerQuery, type FieldResolver } from './ledger-query';
import { whereAddress } from '../rules/rules';
import type { Executor } from '../types';

export interface VolumesFilters {
  /** An address or a pattern (`users:` segments, `.*`), as the accounts list takes. */
  address?: string;
  /** With either bound, the volumes are the sums of the postings of the transactions in [startTime, endTime). */
  startTime?: Date;
  endTime?: Date;
  /** Bounds apply to the insertion date instead of the transaction's timestamp. */
  insertionDate?: boolean;
  /** Groups addresses by their first N segments (`users:1:main` with 1 → `users`). */
  groupBy?: number;
  /** Formance's JSON filter over `address` (the listed account), `asset`, `balance`, `metadata[key]` (of the listed account). */
  query?: string;
}

const VOLUME_FIELDS = 'address, asset, balance, metadata[<key>]';
const volumeField =
  (ledger: string): FieldResolver =>
  (name) => {
    if (name === 'address' || name === 'account') return addressField('g.account');
    if (name === 'asset') return { kind: 'string', sql: 'g.asset' };
    if (name === 'balance') return { kind: 'number', sql: '(g.input::numeric - g.output::numeric)' };
    const metadata = /^metadata\[(.+)\]$/.exec(name);
    if (metadata)
      return {
        kind: 'string',
        sql: '((SELECT am.metadata FROM ledger_accounts am WHERE am.ledger = ? AND am.address = g.account) ->> ?)',
        params: [ledger, metadata[1]],
      };
    return undefined;
  };

export interface VolumesWithBalance {
  account: string;
  asset: string;
  input: bigint;
  output: bigint;
  balance: bigint;
}

/**
 * Volumes per account and asset, ordered by account then asset (Formance's GetVolumesWithBalances). Without time
 * bounds they are the current volumes, read from the rows every write locks and updates, so they always agree with
 * the accounts' own volumes. With bounds they are recomputed from the transactions' postings, so a bounded window
 * reads every transaction in it, on every page (as does groupBy over the current volumes): the cursor bounds the rows
 * returned, not the rows aggregated. @throws ApiError LEDGER_NOT_FOUND
 */
export async function listVolumes(db: Executor, ledger: string, filters: VolumesFilters, page: PageRequest): Promise<Page<VolumesWithBalance>> {
  const condition = compileLedgerQuery(filters.query, volumeField(ledger), VOLUME_FIELDS);
  await assertLedgerExists(db, ledger);
  const base =
    filters.startTime || filters.endTime
      ? volumesFromPostings(db, ledger, filters)
      : db('ledger_volumes')
          .where({ ledger })
          // A pair a script only read has a (0, 0) row; it never moved, so it is not listed (as from postings).
          .where((q) => q.whereNot('input', 0).orWhereNot('output', 0))
          .select('address', 'asset', 'input', 'output');
  const grouped = db
    .from(base.as('v'))
    .select(db.raw(`${accountExpression(filters.groupBy)} AS account`), 'asset')
    .select(db.raw('sum(input)::text AS input, sum(output)::text AS output'))
    .groupByRaw('1, 2');
  if (filters.address) whereAddress(grouped, filters.address);
  const outer = db.from(grouped.as('g')).select('*');
  if (condition) outer.whereRaw(condition.sql, condition.bindings as Knex.RawBinding[]);
  const result = await keysetPage<{ account: string; asset: string; input: string; output: string }>(outer, ['account', 'asset'], 'asc', page);
  return {
    ...result,
    items: result.items.map((r) => {
      const input = BigInt(r.input);
      const output = BigInt(r.output);
      return { account: r.account, asset: r.asset, input, output, balance: input - output };
    }),
  };
}

function volumesFromPostings(db: Executor, ledger: string, filters: VolumesFilters): Knex.QueryBuilder {
  const column = filters.insertionDate ? 't.inserted_at' : 't.timestamp';
  const legs = db('ledger_transactions as t')
    .crossJoin(db.raw('json_array_elements(t.postings) AS p'))
    .where('t.ledger', ledger)
    .select(db.raw(`p->>'source' AS address, p->>'asset' AS asset, 0::numeric AS input, (p->>'amount')::numeric AS output`))
    .unionAll((q) => {
      q.from('ledger_transactions as t')
        .crossJoin(db.raw('json_array_elements(t.postings) AS p'))
        .where('t.ledger', ledger)
        .select(db.raw(`p->>'destination' AS address, p->>'asset' AS asset, (p->>'amount')::numeric AS input, 0::numeric AS output`));
      bound(q, column, filters);
    });
  bound(legs, column, filters);
  return legs;
}

function bound(query: Knex.QueryBuilder, column: string, filters: VolumesFilters): void {
  if (filters.startTime) query.where(column, '>=', filters.startTime);
  if (filters.endTime) query.where(column, '<', filters.endTime);
}

/** The address itself, or its first `groupBy` segments (an integer the route validated, truncated again here). */
function accountExpression(groupBy?: number): string {
  return groupBy ? `array_to_string((string_to_array(address, ':'))[1:${Math.trunc(groupBy)}], ':')` : 'address';
}
