import { notFound } from '../../../lib/errors';
import type { Executor } from '../../../db/knex';
import { ACCOUNT_SHAPES } from './account-shapes';
import { providerLabel } from '../enums';
import { emitPaymentsEvents } from '../events';
import { accountId } from '../ids';
import { stringifyJson } from '../../../lib/json';
import { distinctBatches, nullable } from '../payments/upsert-batches';

/** An account as a provider describes it; `reference` is the provider's own id. */
export interface ProviderAccount {
  reference: string;
  type: 'INTERNAL' | 'EXTERNAL';
  name?: string;
  defaultAsset?: string;
  createdAt: Date;
  metadata: Record<string, string>;
  raw: unknown;
}
export interface ProviderBalance {
  accountReference: string;
  asset: string;
  amount: bigint;
}

export interface Account {
  id: string;
  connectorID: string;
  provider: string;
  reference: string;
  type: string;
  name?: string;
  defaultAsset?: string;
  createdAt: Date;
  metadata: Record<string, string>;
  raw: unknown;
  /** An account of an end user's bank connection (open banking): its payment service user and connection. */
  psuID?: string;
  openBankingConnectionID?: string;
}

/** A row of payments_accounts as Formance's V3Account (its shape: account-shapes.ts). */
export const presentAccount = (r: any, provider: string): Account => ACCOUNT_SHAPES.v3.view({ ...r, provider });

/**
 * Upserts fetched accounts, one statement per batch (distinctBatches). A row is written (and SAVED_ACCOUNT emitted, in
 * the input's order) only when it is new or differs from what is stored, so polling an unchanged provider writes
 * nothing and emits nothing. Returns the number of changed rows.
 */
export async function upsertAccounts(trx: Executor, connectorID: string, provider: string, accounts: ProviderAccount[]): Promise<number> {
  let changed = 0;
  for (const batch of distinctBatches(accounts, (a) => a.reference)) {
    const { rows } = await trx.raw(
      `INSERT INTO payments_accounts (id, connector_id, reference, type, name, default_asset, created_at, metadata, raw)
       SELECT i.id, ?, i.reference, i.type, i.name, i.default_asset, i.created_at, i.metadata, i.raw
       FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::timestamptz[], ?::jsonb[], ?::jsonb[])
         WITH ORDINALITY AS i(id, reference, type, name, default_asset, created_at, metadata, raw, n)
       ORDER BY i.n
       ON CONFLICT (id) DO UPDATE SET type = excluded.type, name = excluded.name, default_asset = excluded.default_asset,
         metadata = excluded.metadata, raw = excluded.raw
       WHERE (payments_accounts.type, payments_accounts.name, payments_accounts.default_asset, payments_accounts.metadata, payments_accounts.raw)
         IS DISTINCT FROM (excluded.type, excluded.name, excluded.default_asset, excluded.metadata, excluded.raw)
       RETURNING *`,
      [
        connectorID,
        batch.map((a) => accountId(connectorID, a.reference)),
        batch.map((a) => a.reference),
        batch.map((a) => a.type),
        nullable(batch.map((a) => a.name ?? null)),
        nullable(batch.map((a) => a.defaultAsset ?? null)),
        batch.map((a) => a.createdAt.toISOString()),
        batch.map((a) => stringifyJson(a.metadata)),
        batch.map((a) => stringifyJson(a.raw ?? {})),
      ],
    );
    const byId = new Map((rows as any[]).map((row) => [row.id as string, row]));
    const saved = batch.map((a) => byId.get(accountId(connectorID, a.reference))).filter((row) => row !== undefined);
    changed += saved.length;
    await emitPaymentsEvents(
      trx,
      saved.map((row) => {
        const { raw, ...rest } = presentAccount(row, provider);
        return { type: 'SAVED_ACCOUNT', payload: { ...rest, rawData: raw } };
      }),
    );
  }
  return changed;
}

/**
 * Upserts fetched balances, one statement per batch: only changed ones are written and emit SAVED_BALANCE (in the
 * input's order). Balances of unknown accounts are skipped.
 */
export async function upsertBalances(trx: Executor, connectorID: string, provider: string, balances: ProviderBalance[]): Promise<number> {
  let changed = 0;
  const keyOf = (accountID: string, asset: string) => `${accountID} ${asset}`;
  for (const batch of distinctBatches(balances, (b) => keyOf(b.accountReference, b.asset))) {
    const ids = batch.map((b) => accountId(connectorID, b.accountReference));
    const { rows } = await trx.raw(
      `INSERT INTO payments_balances (account_id, asset, balance)
       SELECT i.account_id, i.asset, i.balance
       FROM unnest(?::text[], ?::text[], ?::numeric[]) WITH ORDINALITY AS i(account_id, asset, balance, n)
       WHERE EXISTS (SELECT 1 FROM payments_accounts a WHERE a.id = i.account_id)
       ORDER BY i.n
       ON CONFLICT (account_id, asset) DO UPDATE SET balance = excluded.balance, last_updated_at = now()
       WHERE payments_balances.balance <> excluded.balance
       RETURNING *`,
      [ids, batch.map((b) => b.asset), batch.map((b) => b.amount.toString())],
    );
    const byKey = new Map((rows as any[]).map((row) => [keyOf(row.account_id, row.asset), row]));
    const saved = batch.map((b, i) => byKey.get(keyOf(ids[i], b.asset))).filter((row) => row !== undefined);
    changed += saved.length;
    await emitPaymentsEvents(
      trx,
      saved.map((row) => ({
        type: 'SAVED_BALANCE',
        payload: {
          accountID: row.account_id,
          connectorID,
          provider: providerLabel(provider),
          asset: row.asset,
          balance: BigInt(row.balance),
          createdAt: row.created_at,
          lastUpdatedAt: row.last_updated_at,
        },
      })),
    );
  }
  return changed;
}

/** Throws NOT_FOUND. */
export async function getAccount(db: Executor, id: string): Promise<Account> {
  const row = await db('payments_accounts as a')
    .join('payments_connectors as c', 'c.id', 'a.connector_id')
    .where('a.id', id)
    .first('a.*', 'c.provider');
  if (!row) throw notFound(`account ${id} not found`);
  return presentAccount(row, row.provider);
}
