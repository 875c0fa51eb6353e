import { notFound } from '../../../lib/errors';
import type { Executor } from '../../../db/knex';
import { keysetPage, type Page, type PageRequest } from '../../../db/pagination';
import { providerLabel } from '../enums';
import { isUuid } from '../ids';

export interface RelatedAccount {
  id: string;
  accountID: string;
  connectorID: string;
  provider: string;
  createdAt: Date;
}
export interface BankAccount {
  id: string;
  name: string;
  createdAt: Date;
  country?: string;
  iban?: string;
  accountNumber?: string;
  swiftBicCode?: string;
  connectorID?: string;
  accountID?: string;
  provider?: string;
  relatedAccounts: RelatedAccount[];
  metadata: Record<string, string>;
}

/**
 * IBAN and account number are masked on every read, as Formance does: they identify a person's bank account, nothing
 * in the platform needs them back once stored, and the unmasked values only ever leave towards a connector (forward).
 * The IBAN keeps its first 4 and last 4 characters, the account number its first 2 and last 3.
 */
export function maskValue(value: string, keepStart: number, keepEnd: number): string {
  if (value.length <= keepStart + keepEnd) return '*'.repeat(value.length);
  return value.slice(0, keepStart) + '*'.repeat(value.length - keepStart - keepEnd) + value.slice(value.length - keepEnd);
}

async function relatedAccountsOf(db: Executor, ids: string[]): Promise<Map<string, RelatedAccount[]>> {
  const rows =
    ids.length === 0
      ? []
      : await db('payments_bank_account_related_accounts as r')
          .join('payments_connectors as c', 'c.id', 'r.connector_id')
          .whereIn('r.bank_account_id', ids)
          .orderBy('r.created_at')
          .select('r.bank_account_id', 'r.account_id', 'r.connector_id', 'r.created_at', 'c.provider');
  const byId = new Map<string, RelatedAccount[]>();
  for (const r of rows) {
    const list = byId.get(r.bank_account_id) ?? [];
    list.push({
      id: r.account_id,
      accountID: r.account_id,
      connectorID: r.connector_id,
      provider: providerLabel(r.provider),
      createdAt: r.created_at,
    });
    byId.set(r.bank_account_id, list);
  }
  return byId;
}

/** The stored row in the spec's BankAccount shape; `unmasked` is only for forwarding to a connector. */
function present(row: any, related: RelatedAccount[], unmasked = false): BankAccount {
  const first = related[0];
  return {
    id: row.id,
    name: row.name,
    createdAt: row.created_at,
    ...(row.country ? { country: row.country } : {}),
    ...(row.iban ? { iban: unmasked ? row.iban : maskValue(row.iban, 4, 4) } : {}),
    ...(row.account_number ? { accountNumber: unmasked ? row.account_number : maskValue(row.account_number, 2, 3) } : {}),
    ...(row.swift_bic_code ? { swiftBicCode: row.swift_bic_code } : {}),
    // The legacy shape names one connector account; it is the first one the bank account was forwarded to.
    ...(first ? { connectorID: first.connectorID, accountID: first.accountID, provider: first.provider } : {}),
    relatedAccounts: related,
    metadata: row.metadata ?? {},
  };
}

/** Op 8. Throws NOT_FOUND (an id that is not a UUID cannot exist either). */
export async function getBankAccount(db: Executor, id: string, options: { unmasked?: boolean } = {}): Promise<BankAccount> {
  const row = isUuid(id) ? await db('payments_bank_accounts').where({ id }).first() : undefined;
  if (!row) throw notFound(`bank account ${id} not found`);
  return present(row, (await relatedAccountsOf(db, [id])).get(id) ?? [], options.unmasked);
}

/** Newest first. */
export async function listBankAccounts(db: Executor, page: PageRequest): Promise<Page<BankAccount>> {
  const rows = await keysetPage<any>(db('payments_bank_accounts').select('*'), ['created_at', 'id'], 'desc', page);
  const related = await relatedAccountsOf(
    db,
    rows.items.map((r) => r.id),
  );
  return { ...rows, items: rows.items.map((r) => present(r, related.get(r.id) ?? [])) };
}

export const bankAccountKey = (b: BankAccount): unknown[] => [b.createdAt.toISOString(), b.id];
