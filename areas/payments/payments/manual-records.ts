import { validationError } from '../../../lib/errors';
import { inTransaction } from '../../../db/errors';
import type { Db, Executor } from '../../../db/knex';
import { type Account, getAccount, upsertAccounts } from '../accounts/accounts';
import { requireCapability } from '../connectors/connector-catalog';
import { getConnectorRow } from '../connectors/connectors';
import { accountId } from '../ids';
import { getPayment, type Payment } from './payments';
import { upsertPayment } from './payments-upsert';

/**
 * Formance's manual records (v3 createAccount, createPayment): a client records an account or a payment of a
 * connector itself, for providers the connector does not fetch them from. The connector must be installed and have
 * ALLOW_FORMANCE_ACCOUNT_CREATION / ALLOW_FORMANCE_PAYMENT_CREATION (400 naming it otherwise). Records are keyed by
 * (connector, reference) like fetched ones, so recording the same reference again updates it.
 */
export interface ManualAccountInput {
  connectorID: string;
  reference: string;
  accountName: string;
  type: 'INTERNAL' | 'EXTERNAL';
  createdAt: string;
  defaultAsset?: string | null;
  metadata?: Record<string, string> | null;
}

export async function createManualAccount(db: Db, input: ManualAccountInput): Promise<Account> {
  return inTransaction(db, async (trx) => {
    const connector = await getConnectorRow(trx, input.connectorID, { installed: true });
    requireCapability(connector, 'ALLOW_FORMANCE_ACCOUNT_CREATION');
    await upsertAccounts(trx, connector.id, connector.provider, [
      {
        reference: input.reference,
        type: input.type,
        name: input.accountName,
        ...(input.defaultAsset ? { defaultAsset: input.defaultAsset } : {}),
        createdAt: new Date(input.createdAt),
        metadata: input.metadata ?? {},
        raw: {},
      },
    ]);
    return getAccount(trx, accountId(connector.id, input.reference));
  });
}

export interface ManualAdjustmentInput {
  reference: string;
  createdAt: string;
  status: string;
  amount?: bigint;
  asset?: string;
  metadata?: Record<string, string> | null;
}
export interface ManualPaymentInput {
  connectorID: string;
  reference: string;
  type: string;
  scheme: string;
  asset: string;
  amount: bigint;
  initialAmount: bigint;
  createdAt: string;
  sourceAccountID?: string;
  destinationAccountID?: string;
  metadata?: Record<string, string> | null;
  adjustments?: ManualAdjustmentInput[];
}

/** The reference of one of the connector's accounts, from its id. Throws VALIDATION. */
async function referenceOf(trx: Executor, connectorID: string, id: string | undefined, field: string): Promise<string | undefined> {
  if (id === undefined) return undefined;
  const row = await trx('payments_accounts').where({ id, connector_id: connectorID }).first('reference');
  if (!row) throw validationError(`body.${field}: no account ${id} of connector ${connectorID}`);
  return row.reference;
}

/**
 * Each adjustment is one state of the payment, recorded oldest first (the payment takes the newest one's status); a
 * payment recorded without adjustments is PENDING.
 */
export async function createManualPayment(db: Db, input: ManualPaymentInput): Promise<Payment> {
  return inTransaction(db, async (trx) => {
    const connector = await getConnectorRow(trx, input.connectorID, { installed: true });
    requireCapability(connector, 'ALLOW_FORMANCE_PAYMENT_CREATION');
    const sourceAccountReference = await referenceOf(trx, connector.id, input.sourceAccountID, 'sourceAccountID');
    const destinationAccountReference = await referenceOf(trx, connector.id, input.destinationAccountID, 'destinationAccountID');
    const states = [...(input.adjustments ?? [])].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
    if (states.length === 0) states.push({ reference: input.reference, createdAt: input.createdAt, status: 'PENDING' });
    let id = '';
    for (const state of states) {
      ({ id } = await upsertPayment(trx, connector.id, {
        reference: input.reference,
        createdAt: new Date(input.createdAt),
        updatedAt: new Date(state.createdAt),
        type: input.type,
        status: state.status,
        scheme: input.scheme,
        asset: input.asset,
        amount: state.amount ?? input.amount,
        initialAmount: input.initialAmount,
        ...(sourceAccountReference ? { sourceAccountReference } : {}),
        ...(destinationAccountReference ? { destinationAccountReference } : {}),
        metadata: { ...input.metadata, ...state.metadata },
        raw: {},
      }));
    }
    return getPayment(trx, id, { v3: true });
  });
}
