import { ApiError, notFound } from '../../lib/errors';
import { stringifyJson } from '../../lib/json';
import type { Db, Executor } from '../../db/knex';
import { settleHold, type Posting, type SettleInput } from '../ledger';
import { keysetPage, type Page, type PageRequest } from '../../db/pagination';
import { holdAccount, subjectAccount, walletTxMetadata, WALLETS_LEDGER, type Subject } from './chart';
import { withWalletKey } from './movements';
import { getWalletRow } from './wallets';
import { holdRows, holdTerms, type HoldTerms, type SettleTerms } from './hold-rows';

export interface Hold {
  id: string;
  walletID: string;
  asset: string;
  description: string;
  metadata: Record<string, string>;
  destination: Subject;
  originalAmount: bigint;
  remaining: bigint;
  closed: boolean;
}

interface HoldRow extends HoldTerms {
  seq: string;
  closed_at: Date | null;
}

/**
 * What is still held: the hold account's balance in the ledger; nothing once the hold is closed. The wallets ledger is
 * an ordinary ledger, so a forced revert through the ledger API can push a hold account below zero: that is reported as
 * nothing held, never as a negative amount. One query for any number of holds (a page of the list).
 */
async function remainingOfAll(db: Executor, rows: HoldRow[]): Promise<Map<string, bigint>> {
  const open = rows.filter((row) => row.closed_at === null);
  const balances: Array<{ address: string; asset: string; balance: string }> = open.length
    ? await db('ledger_volumes')
        .where({ ledger: WALLETS_LEDGER })
        .whereIn(
          'address',
          open.map((row) => holdAccount(row.id)),
        )
        .select('address', 'asset', db.raw('(input - output)::text AS balance'))
    : [];
  const byKey = new Map(balances.map((b) => [`${b.address} ${b.asset}`, BigInt(b.balance)]));
  return new Map(
    rows.map((row) => {
      const balance = row.closed_at === null ? (byKey.get(`${holdAccount(row.id)} ${row.asset}`) ?? 0n) : 0n;
      return [row.id, balance > 0n ? balance : 0n];
    }),
  );
}

const remainingOf = async (db: Executor, row: HoldRow): Promise<bigint> => (await remainingOfAll(db, [row])).get(row.id) ?? 0n;

const present = (row: HoldRow, remaining: bigint): Hold => ({
  id: row.id,
  walletID: row.wallet_id,
  asset: row.asset,
  description: row.description,
  metadata: row.metadata ?? {},
  destination: row.destination,
  originalAmount: BigInt(row.original_amount),
  remaining,
  closed: row.closed_at !== null,
});

async function holdRow(db: Executor, id: string): Promise<HoldRow> {
  const row = /^[0-9a-f-]{36}$/i.test(id) ? await db<HoldRow>('wallet_holds').where({ id }).first() : undefined;
  if (!row) throw notFound(`hold "${id}" not found`);
  return row;
}

/** @throws ApiError NOT_FOUND */
export async function getHold(db: Executor, id: string): Promise<Hold> {
  const row = await holdRow(db, id);
  return present(row, await remainingOf(db, row));
}

/** Holds in creation order, optionally of one wallet and with a metadata subset. @throws ApiError NOT_FOUND (wallet) */
export async function listHolds(
  db: Executor,
  filters: { walletID?: string; metadata?: Record<string, string> },
  page: PageRequest,
): Promise<Page<Hold & { seq: string }>> {
  const query = db('wallet_holds').select('*');
  if (filters.metadata && Object.keys(filters.metadata).length > 0) query.whereRaw('metadata @> ?::jsonb', [stringifyJson(filters.metadata)]);
  if (filters.walletID) {
    await getWalletRow(db, filters.walletID);
    query.where({ wallet_id: filters.walletID });
  }
  const result = await keysetPage<HoldRow>(query, ['seq'], 'asc', page);
  const remaining = await remainingOfAll(db, result.items);
  const items = result.items.map((row) => ({ ...present(row, remaining.get(row.id) ?? 0n), seq: row.seq }));
  return { ...result, items };
}

/** What the open holds of a wallet still hold, per asset. */
export async function heldFunds(db: Executor, walletId: string): Promise<Record<string, bigint>> {
  const rows: HoldRow[] = await db('wallet_holds').where({ wallet_id: walletId }).whereNull('closed_at');
  const remaining = await remainingOfAll(db, rows);
  const funds: Record<string, bigint> = {};
  for (const row of rows) funds[row.asset] = (funds[row.asset] ?? 0n) + (remaining.get(row.id) ?? 0n);
  return funds;
}

/**
 * Settles a hold through the ledger's write pipeline (SettleInput): what it needs is fixed before the write (the
 * hold's accounts, its sources, its destination: set at its creation, so known without reading its row once this
 * process saw it); whether the hold is open, and what it still holds, is known only under the batch's locks, where
 * `plan` turns them into the postings (or refuses: missing, closed, more than is left). A retry of a settle that went
 * through under an Idempotency-Key gets its stored answer before any of this, not HOLD_CLOSED.
 */
async function settle(
  db: Db,
  holdId: string,
  scope: string,
  request: unknown,
  idempotencyKey: string | undefined,
  plan: (row: SettleTerms, remaining: bigint) => { postings: Posting[]; close: boolean },
): Promise<void> {
  const terms = await holdTerms(db, holdId);
  const input: SettleInput = {
    holdId: terms.id,
    held: { account: holdAccount(terms.id), asset: terms.asset },
    pairs: [subjectAccount(terms.destination), ...terms.sources.map((s) => s.account)].map((account): [string, string] => [account, terms.asset]),
    metadata: walletTxMetadata(terms.wallet_id, { 'wallets/holds/id': terms.id }),
    rows: holdRows,
    plan(hold) {
      if (hold.status === 'missing') throw notFound(`hold "${holdId}" not found`);
      if (hold.remaining <= 0n) throw new ApiError('HOLD_CLOSED', `hold "${holdId}" is closed`);
      return plan(terms, hold.remaining);
    },
  };
  // The key stores `true`: the settle's answer is 204, whatever it settled.
  await withWalletKey(db, `wallets/${scope}/${holdId}`, idempotencyKey, request, async (executor) => {
    await settleHold(executor, WALLETS_LEDGER, input);
    return true;
  });
}

/** Sends `amount` back along the accounts the hold was funded from, each up to what it gave (in debit order). */
function returnPostings(row: SettleTerms, amount: bigint): Posting[] {
  const postings: Posting[] = [];
  let left = amount;
  for (const source of row.sources) {
    const back = BigInt(source.amount) < left ? BigInt(source.amount) : left;
    if (back > 0n) postings.push({ source: holdAccount(row.id), destination: source.account, amount: back, asset: row.asset });
    left -= back;
  }
  return postings;
}

/**
 * Confirms a hold: `amount` (default, or 0: all that remains) goes to the hold's destination. With `final`, what is
 * left goes back to the wallet and the hold closes; it also closes when nothing remains.
 * @throws ApiError NOT_FOUND, HOLD_CLOSED, INSUFFICIENT_FUND (more than remains)
 */
export async function confirmHold(
  db: Db,
  holdId: string,
  input: { amount?: bigint; final?: boolean } = {},
  options: { idempotencyKey?: string } = {},
): Promise<void> {
  await settle(db, holdId, 'confirm', input, options.idempotencyKey, (row, remaining) => {
    const amount = input.amount && input.amount > 0n ? input.amount : remaining;
    if (amount > remaining) throw new ApiError('INSUFFICIENT_FUND', `hold "${holdId}" has ${remaining} ${row.asset} left, cannot confirm ${amount}`);
    const postings: Posting[] = [{ source: holdAccount(row.id), destination: subjectAccount(row.destination), amount, asset: row.asset }];
    const rest = remaining - amount;
    if (input.final && rest > 0n) postings.push(...returnPostings(row, rest));
    return { postings, close: input.final === true || rest === 0n };
  });
}

/** Voids a hold: all that remains goes back to where it came from, and the hold closes. @throws ApiError NOT_FOUND, HOLD_CLOSED */
export async function voidHold(db: Db, holdId: string, options: { idempotencyKey?: string } = {}): Promise<void> {
  await settle(db, holdId, 'void', {}, options.idempotencyKey, (row, remaining) => ({ postings: returnPostings(row, remaining), close: true }));
}
