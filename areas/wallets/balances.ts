import { ApiError, notFound, validationError } from '../../lib/errors';
import { BALANCE_NAME_PATTERN } from '../../lib/grammar';
import type { Executor } from '../../db/knex';
import { addAccountMetadata, getAccount } from '../ledger';
import { inWriteTransaction } from '../ledger';
import { balanceAccount, MAIN_BALANCE, WALLETS_LEDGER } from './chart';
import { getWalletRow } from './wallets';

export interface WalletBalance {
  name: string;
  expiresAt: Date | null;
  priority: number;
}

interface BalanceRow {
  name: string;
  expires_at: Date | null;
  priority: number;
}

const present = (row: BalanceRow): WalletBalance => ({ name: row.name, expiresAt: row.expires_at, priority: row.priority });
const MAIN: WalletBalance = { name: MAIN_BALANCE, expiresAt: null, priority: 0 };

/** Creates a named balance. @throws ApiError NOT_FOUND (wallet), VALIDATION (`main` or a bad name), CONFLICT (exists) */
export async function createBalance(
  db: Executor,
  walletId: string,
  input: { name: string; expiresAt?: Date; priority?: number },
): Promise<WalletBalance> {
  if (input.name === MAIN_BALANCE) throw validationError('balance name "main" is reserved: every wallet has it');
  if (!new RegExp(BALANCE_NAME_PATTERN).test(input.name)) throw validationError('balance name: 1 to 64 of [a-zA-Z0-9_-]');
  await getWalletRow(db, walletId);
  return inWriteTransaction(db, async (trx) => {
    const inserted = await trx('wallet_balances')
      .insert({ wallet_id: walletId, name: input.name, expires_at: input.expiresAt ?? null, priority: input.priority ?? 0 })
      .onConflict(['wallet_id', 'name'])
      .ignore()
      .returning('name');
    if (inserted.length === 0) throw new ApiError('CONFLICT', `wallet "${walletId}" already has a balance "${input.name}"`);
    await addAccountMetadata(trx, WALLETS_LEDGER, balanceAccount(walletId, input.name), {
      'wallets/spec/type': 'wallets.balance',
      'wallets/id': walletId,
      'wallets/balances/name': input.name,
      ...(input.expiresAt ? { 'wallets/balances/expiresAt': input.expiresAt.toISOString() } : {}),
      'wallets/balances/priority': String(input.priority ?? 0),
    });
    return { name: input.name, expiresAt: input.expiresAt ?? null, priority: input.priority ?? 0 };
  });
}

/** All balances of a wallet, `main` first. @throws ApiError NOT_FOUND */
export async function listBalances(db: Executor, walletId: string): Promise<WalletBalance[]> {
  await getWalletRow(db, walletId);
  const rows: BalanceRow[] = await db('wallet_balances').where({ wallet_id: walletId }).orderBy('created_at').orderBy('name');
  return [MAIN, ...rows.map(present)];
}

/** One balance with its assets. @throws ApiError NOT_FOUND (wallet or balance) */
export async function getBalance(db: Executor, walletId: string, name: string): Promise<WalletBalance & { assets: Record<string, bigint> }> {
  const balance = (await listBalances(db, walletId)).find((b) => b.name === name);
  if (!balance) throw notFound(`wallet "${walletId}" has no balance "${name}"`);
  const account = await getAccount(db, WALLETS_LEDGER, balanceAccount(walletId, name));
  return { ...balance, assets: Object.fromEntries(Object.entries(account.volumes).map(([asset, v]) => [asset, v.balance])) };
}

/** Whether a balance has expired at `now`: from its `expiresAt` on, as the summary counts it. */
export const isExpired = (balance: WalletBalance, now: Date): boolean => balance.expiresAt !== null && balance.expiresAt <= now;

/** One balance of a wallet, `main` included. @throws ApiError NOT_FOUND (wallet), VALIDATION (unknown balance) */
export async function walletBalance(db: Executor, walletId: string, name: string): Promise<WalletBalance> {
  const balance = (await listBalances(db, walletId)).find((b) => b.name === name);
  if (!balance) throw validationError(`wallet "${walletId}" has no balance "${name}"`);
  return balance;
}

/**
 * The balances a debit (or a pending debit's hold) draws from, in order. `["*"]`: every balance not expired, those with
 * an expiry first (soonest first), then by priority (highest first), `main` last. Named balances keep the caller's
 * order, expired ones left out as Formance's wallets service filters them; when every balance named has expired there
 * is nothing to draw from (INSUFFICIENT_FUND, as Formance answers). Default (none, or only empty names): `main`.
 * Expiry is judged at `now`, when the debit is read, as Formance does.
 * @throws ApiError VALIDATION (unknown balance), INSUFFICIENT_FUND (every balance named has expired)
 */
export async function debitSources(db: Executor, walletId: string, requested: string[] | undefined, now = new Date()): Promise<string[]> {
  // An empty name is no name (fctl sends `balances: [""]` when no balance is given). The default debit (main only) needs
  // no read: main always exists.
  const names = (requested ?? []).filter((name) => name !== '');
  if (names.length === 0) return [MAIN_BALANCE];
  const all = await listBalances(db, walletId);
  if (names.includes('*')) {
    const named = all.filter((b) => b.name !== MAIN_BALANCE && !isExpired(b, now));
    named.sort((a, b) => {
      if (a.expiresAt && b.expiresAt) return a.expiresAt.getTime() - b.expiresAt.getTime();
      if (a.expiresAt || b.expiresAt) return a.expiresAt ? -1 : 1;
      return b.priority - a.priority;
    });
    return [...named.map((b) => b.name), MAIN_BALANCE];
  }
  const byName = new Map(all.map((b) => [b.name, b]));
  const sources: string[] = [];
  for (const name of new Set(names)) {
    const balance = byName.get(name);
    if (!balance) throw validationError(`wallet "${walletId}" has no balance "${name}"`);
    if (!isExpired(balance, now)) sources.push(name);
  }
  if (sources.length === 0) {
    throw new ApiError('INSUFFICIENT_FUND', `wallet "${walletId}": every balance named (${[...new Set(names)].join(', ')}) has expired`);
  }
  return sources;
}
