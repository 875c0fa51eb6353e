import { randomUUID } from 'node:crypto';
import { notFound } from '../../lib/errors';
import { withIdempotencyKey } from '../../db/idempotency';
import type { Db, Executor } from '../../db/knex';
import { addAccountMetadata, ensureLedger, listAccounts } from '../ledger';
import { inWriteTransaction } from '../ledger';
import { keysetPage, type Page, type PageRequest } from '../../db/pagination';
import { balanceAccount, MAIN_BALANCE, WALLETS_LEDGER } from './chart';
import { stringifyJson } from '../../lib/json';

export interface Wallet {
  id: string;
  name: string;
  metadata: Record<string, string>;
  createdAt: Date;
  ledger: string;
  balances: { main: { assets: Record<string, bigint> }; [name: string]: { assets: Record<string, bigint> } };
}

interface WalletRow {
  seq: string;
  id: string;
  name: string;
  metadata: Record<string, string>;
  ledger: string;
  created_at: Date;
}

const summary = (row: WalletRow): Omit<Wallet, 'balances'> & { seq: string } => ({
  seq: row.seq,
  id: row.id,
  name: row.name,
  metadata: row.metadata ?? {},
  createdAt: row.created_at,
  ledger: row.ledger,
});

/** @throws ApiError NOT_FOUND */
export async function getWalletRow(db: Executor, id: string): Promise<WalletRow> {
  const row = /^[0-9a-f-]{36}$/i.test(id) ? await db<WalletRow>('wallets').where({ id }).first() : undefined;
  if (!row) throw notFound(`wallet "${id}" not found`);
  return row;
}

/**
 * Wallets this process has read. A wallet is never deleted and its ledger never changes, so a write to it needs its
 * row only once; an unknown id is read every time (a 404 is never remembered). Bounded: the oldest are forgotten.
 */
const KNOWN_WALLETS_MAX = 100_000;
const knownWallets = new Set<string>();

/** For writes, which need only to know the wallet exists. @throws ApiError NOT_FOUND */
export async function assertWalletExists(db: Executor, id: string): Promise<void> {
  if (knownWallets.has(id)) return;
  await getWalletRow(db, id);
  if (knownWallets.size >= KNOWN_WALLETS_MAX) knownWallets.delete(knownWallets.values().next().value as string);
  knownWallets.add(id);
}

/**
 * Creates a wallet and tags its main account in the ledger for operators. With an idempotency key, a retry returns
 * the wallet created the first time.
 * @throws ApiError CONFLICT (key reused with another body), VALIDATION
 */
export async function createWallet(
  db: Db,
  input: { name: string; metadata?: Record<string, string> },
  options: { idempotencyKey?: string } = {},
): Promise<Wallet> {
  await ensureLedger(db, WALLETS_LEDGER);
  const id = await inWriteTransaction(db, async (trx) => {
    const claim = await withIdempotencyKey(trx, { scope: 'wallets/create', key: options.idempotencyKey, request: input }, async () => {
      const walletId = randomUUID();
      await trx('wallets').insert({ id: walletId, name: input.name, metadata: stringifyJson(input.metadata ?? {}), ledger: WALLETS_LEDGER });
      await addAccountMetadata(trx, WALLETS_LEDGER, balanceAccount(walletId), {
        'wallets/spec/type': 'wallets.primary',
        'wallets/id': walletId,
        'wallets/name': input.name,
        'wallets/balances/name': MAIN_BALANCE,
      });
      return walletId;
    });
    return claim.value;
  });
  return getWallet(db, id);
}

/** A wallet with the assets of every balance (main always present). @throws ApiError NOT_FOUND */
export async function getWallet(db: Executor, id: string): Promise<Wallet> {
  const row = await getWalletRow(db, id);
  const names: string[] = (await db('wallet_balances').where({ wallet_id: id }).select('name')).map((b: { name: string }) => b.name);
  const accounts = await listAccounts(db, WALLETS_LEDGER, { address: `wallets:${id}:` }, { pageSize: 1000 });
  const balances: Wallet['balances'] = { main: { assets: {} } };
  for (const name of names) balances[name] = { assets: {} };
  for (const account of accounts.items) {
    const name = account.address.slice(`wallets:${id}:`.length);
    balances[name] ??= { assets: {} };
    for (const [asset, v] of Object.entries(account.volumes)) balances[name].assets[asset] = v.balance;
  }
  const { seq: _seq, ...wallet } = summary(row);
  return { ...wallet, balances };
}

/** Wallets in creation order, filtered by exact name and metadata subset. */
export async function listWallets(
  db: Executor,
  filters: { name?: string; metadata?: Record<string, string> },
  page: PageRequest,
): Promise<Page<Omit<Wallet, 'balances'> & { seq: string }>> {
  const query = db('wallets').select('*');
  if (filters.name) query.where({ name: filters.name });
  if (filters.metadata && Object.keys(filters.metadata).length > 0) query.whereRaw('metadata @> ?::jsonb', [stringifyJson(filters.metadata)]);
  const result = await keysetPage<WalletRow>(query, ['seq'], 'asc', page);
  return { ...result, items: result.items.map(summary) };
}

/** Merges keys into the wallet's metadata. @throws ApiError NOT_FOUND */
export async function updateWalletMetadata(db: Executor, id: string, metadata: Record<string, string>): Promise<void> {
  await getWalletRow(db, id);
  await db('wallets')
    .where({ id })
    .update({ metadata: db.raw('metadata || ?::jsonb', [stringifyJson(metadata)]) });
}
