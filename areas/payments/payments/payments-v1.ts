import { notFound, validationError } from '../../../lib/errors';
import { parseJson } from '../../../lib/json';
import { inTransaction } from '../../../db/errors';
import type { Db, Executor } from '../../../db/knex';
import { keysetPage, type Page, type PageRequest } from '../../../db/pagination';
import { ACCOUNT_SHAPES } from '../accounts/account-shapes';
import { upsertAccounts } from '../accounts/accounts';
import { getConnectorRow } from '../connectors/connectors';
import { getPayment, type Payment } from './payments';
import { upsertPayment } from './payments-upsert';

/** The provider's reference an account id of this connector encodes (ids are base64url JSON, see ids.ts). */
function referenceOf(accountID: string, connectorID: string, field: string): string {
  let decoded: { ConnectorID?: unknown; Reference?: unknown } | undefined;
  try {
    decoded = parseJson(Buffer.from(accountID, 'base64url').toString('utf8')) as typeof decoded;
  } catch {
    decoded = undefined;
  }
  if (decoded?.ConnectorID !== connectorID || typeof decoded.Reference !== 'string') {
    throw validationError(`body.${field}: not an account of connector ${connectorID}`);
  }
  return decoded.Reference;
}

export interface PaymentInputV1 {
  connectorID: string;
  reference: string;
  createdAt: string;
  type: string;
  status: string;
  scheme: string;
  asset: string;
  amount: bigint;
  sourceAccountID?: string;
  destinationAccountID?: string;
}

/**
 * Payments v1's createPayment: records a payment on a connector as if its provider had reported it (the same upsert
 * as a fetch, so the same reference twice updates the one payment). Throws NOT_FOUND (connector), VALIDATION.
 */
export async function createPaymentV1(db: Db, input: PaymentInputV1): Promise<Payment> {
  const connector = await getConnectorRow(db, input.connectorID);
  const { id } = await inTransaction(db, (trx) =>
    upsertPayment(trx, connector.id, {
      reference: input.reference,
      createdAt: new Date(input.createdAt),
      type: input.type,
      status: input.status,
      scheme: input.scheme,
      asset: input.asset,
      amount: input.amount,
      metadata: {},
      raw: {},
      ...(input.sourceAccountID ? { sourceAccountReference: referenceOf(input.sourceAccountID, connector.id, 'sourceAccountID') } : {}),
      ...(input.destinationAccountID
        ? { destinationAccountReference: referenceOf(input.destinationAccountID, connector.id, 'destinationAccountID') }
        : {}),
    }),
  );
  return getPayment(db, id);
}

/** Formance's v1 Account. */
export interface AccountV1 {
  id: string;
  reference: string;
  connectorID: string;
  provider: string;
  createdAt: Date;
  accountName: string;
  defaultAsset: string;
  defaultCurrency: string;
  type: string;
  metadata: Record<string, string>;
  raw: unknown;
  pools: string[];
}

const accountsQuery = (db: Executor) =>
  db('payments_accounts as a')
    .join('payments_connectors as c', 'c.id', 'a.connector_id')
    .select(
      'a.*',
      'c.provider',
      db.raw(
        "coalesce((SELECT array_agg(pool_id::text ORDER BY pool_id) FROM payments_pool_accounts pa WHERE pa.account_id = a.id), '{}'::text[]) AS pools",
      ),
    );

const presentAccountV1 = (r: any): AccountV1 => ACCOUNT_SHAPES.v1.view(r);

export interface AccountInputV1 {
  connectorID: string;
  reference: string;
  createdAt: string;
  type: 'INTERNAL' | 'EXTERNAL';
  accountName?: string;
  defaultAsset?: string;
  metadata?: Record<string, string> | null;
}

/** Payments v1's createAccount: an account recorded as if the connector's provider had listed it. Throws NOT_FOUND. */
export async function createAccountV1(db: Db, input: AccountInputV1): Promise<AccountV1> {
  const connector = await getConnectorRow(db, input.connectorID);
  await inTransaction(db, (trx) =>
    upsertAccounts(trx, connector.id, connector.provider, [
      {
        reference: input.reference,
        type: input.type,
        createdAt: new Date(input.createdAt),
        metadata: input.metadata ?? {},
        raw: {},
        ...(input.accountName ? { name: input.accountName } : {}),
        ...(input.defaultAsset ? { defaultAsset: input.defaultAsset } : {}),
      },
    ]),
  );
  const row = await accountsQuery(db).where('a.connector_id', connector.id).where('a.reference', input.reference).first();
  return presentAccountV1(row);
}

/** Throws NOT_FOUND. */
export async function getAccountV1(db: Executor, id: string): Promise<AccountV1> {
  const row = await accountsQuery(db).where('a.id', id).first();
  if (!row) throw notFound(`account ${id} not found`);
  return presentAccountV1(row);
}

/** Formance's v1 AccountBalance: the last fetched balance per asset (`currency` repeats the asset, as v1 does). */
export interface BalanceV1 {
  accountId: string;
  asset: string;
  currency: string;
  balance: bigint;
  createdAt: Date;
  lastUpdatedAt: Date;
}

/** The account's balances by asset; `asset` narrows to one. Throws NOT_FOUND. */
export async function listAccountBalancesV1(
  db: Executor,
  accountID: string,
  filters: { asset?: string },
  page: PageRequest,
): Promise<Page<BalanceV1>> {
  await getAccountV1(db, accountID);
  const query = db('payments_balances').where({ account_id: accountID });
  if (filters.asset) query.where({ asset: filters.asset });
  const rows = await keysetPage<any>(query, ['asset'], 'asc', page);
  return {
    ...rows,
    items: rows.items.map((r) => ({
      accountId: r.account_id,
      asset: r.asset,
      currency: r.asset,
      balance: BigInt(r.balance),
      createdAt: r.created_at,
      lastUpdatedAt: r.last_updated_at,
    })),
  };
}
export const balanceV1Key = (b: BalanceV1): unknown[] => [b.asset];
