import { notFound } from '../../lib/errors';
import type { Executor } from '../../db/knex';
import { providerLabel } from './enums';
import { emitPaymentsEvents } from './events';
import { accountId } from './ids';
import { stringifyJson } from '../../lib/json';

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
export interface ProviderBalance { accountReference: string; asset: string; amount: bigint }

export interface Account {
  id: string; connectorID: string; provider: string; reference: string; type: string; name?: string;
  defaultAsset?: string; createdAt: Date; metadata: Record<string, string>; raw: unknown;
  /** An account of an end user's bank connection (open banking): its payment service user and connection. */
  psuID?: string; openBankingConnectionID?: string;
}

export const presentAccount = (r: any, provider: string): Account => ({
  id: r.id, connectorID: r.connector_id, provider: providerLabel(provider), reference: r.reference, type: r.type,
  ...(r.name ? { name: r.name } : {}), ...(r.default_asset ? { defaultAsset: r.default_asset } : {}),
  createdAt: r.created_at, metadata: r.metadata ?? {}, raw: r.raw,
  ...(r.psu_id ? { psuID: r.psu_id } : {}), ...(r.open_banking_connection_id ? { openBankingConnectionID: r.open_banking_connection_id } : {}),
});

/**
 * Upserts fetched accounts. A row is written (and SAVED_ACCOUNT emitted) only when it is new or differs from what is
 * stored, so polling an unchanged provider writes nothing and emits nothing. Returns the number of changed rows.
 */
export async function upsertAccounts(trx: Executor, connectorID: string, provider: string, accounts: ProviderAccount[]): Promise<number> {
  let changed = 0;
  for (const a of accounts) {
    const { rows } = await trx.raw(
      `INSERT INTO payments_accounts (id, connector_id, reference, type, name, default_asset, created_at, metadata, raw)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb)
       ON CONFLICT (id) DO UPDATE SET type = excluded.type, name = excluded.name, default_asset = excluded.default_asset,
         metadata = excluded.metadata, raw = excluded.raw
       WHERE (payments_accounts.type, payments_accounts.name, payments_accounts.default_asset, payments_accounts.metadata, payments_accounts.raw)
         IS DISTINCT FROM (excluded.type, excluded.name, excluded.default_asset, excluded.metadata, excluded.raw)
       RETURNING *`,
      [accountId(connectorID, a.reference), connectorID, a.reference, a.type, a.name ?? null, a.defaultAsset ?? null, a.createdAt,
        stringifyJson(a.metadata), stringifyJson(a.raw ?? {})],
    );
    for (const row of rows) {
      changed++;
      const account = presentAccount(row, provider);
      const { raw, ...rest } = account;
      await emitPaymentsEvents(trx, [{ type: 'SAVED_ACCOUNT', payload: { ...rest, rawData: raw } }]);
    }
  }
  return changed;
}

/** Upserts fetched balances (only changed ones are written and emit SAVED_BALANCE). Unknown accounts are skipped. */
export async function upsertBalances(trx: Executor, connectorID: string, provider: string, balances: ProviderBalance[]): Promise<number> {
  let changed = 0;
  for (const b of balances) {
    const id = accountId(connectorID, b.accountReference);
    const { rows } = await trx.raw(
      `INSERT INTO payments_balances (account_id, asset, balance)
       SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM payments_accounts WHERE id = ?)
       ON CONFLICT (account_id, asset) DO UPDATE SET balance = excluded.balance, last_updated_at = now()
       WHERE payments_balances.balance <> excluded.balance
       RETURNING *`,
      [id, b.asset, b.amount.toString(), id],
    );
    for (const row of rows) {
      changed++;
      await emitPaymentsEvents(trx, [{
        type: 'SAVED_BALANCE',
        payload: { accountID: id, connectorID, provider: providerLabel(provider), asset: row.asset, balance: BigInt(row.balance),
          createdAt: row.created_at, lastUpdatedAt: row.last_updated_at },
      }]);
    }
  }
  return changed;
}

/** Throws NOT_FOUND. */
export async function getAccount(db: Executor, id: string): Promise<Account> {
  const row = await db('payments_accounts as a').join('payments_connectors as c', 'c.id', 'a.connector_id').where('a.id', id).first('a.*', 'c.provider');
  if (!row) throw notFound(`account ${id} not found`);
  return presentAccount(row, row.provider);
}
