import { ApiError, notFound } from '../../../lib/errors';
import type { TemporalDeps } from '../../../lib/temporal';
import { inTransaction } from '../../../db/errors';
import type { Db } from '../../../db/knex';
import { upsertAccounts, type ProviderAccount } from './accounts';
import { getBankAccount } from './bank-account-read';
import { emitSavedBankAccount } from './bank-account-write';
import { requireCapability } from '../connectors/connector-catalog';
import { getConnectorRow } from '../connectors/connectors';
import { accountId, isUuid } from '../ids';
import { forwardWorkflowId, startBankAccountForward } from '../engine';

/**
 * Forwards a bank account to a connector, as Formance's v3 does: the answer is the task (the Temporal workflow, retried
 * if the provider is briefly down) that creates the matching EXTERNAL account at the provider and makes it a related
 * account of the bank account; read it with getTask (SUCCEEDED with the account as `createdObjectID`, or FAILED with
 * the provider's refusal). Forwarding again to the same connector answers the first forward's task without running
 * anything. Throws NOT_FOUND, VALIDATION (capability), SERVICE_UNAVAILABLE (Temporal unreachable).
 */
export async function forwardBankAccount(deps: { db: Db; temporal: TemporalDeps }, id: string, connectorID: string): Promise<{ taskID: string }> {
  const bankAccount = await getBankAccount(deps.db, id);
  const connector = await getConnectorRow(deps.db, connectorID, { installed: true }).catch(() => {
    throw notFound(`connector ${connectorID} not found or uninstalled`);
  });
  requireCapability(connector, 'CREATE_BANK_ACCOUNT');
  if (bankAccount.relatedAccounts.some((r) => r.connectorID === connectorID)) return { taskID: forwardWorkflowId(id, connectorID) };
  try {
    return { taskID: await startBankAccountForward(deps.temporal, id, connectorID) };
  } catch (error) {
    throw new ApiError('SERVICE_UNAVAILABLE', 'could not start the forward on Temporal', { cause: error });
  }
}

/**
 * Formance's forward of one of a payment service user's bank accounts: the same forward, for a bank account linked to
 * that user. Throws NOT_FOUND (user, or bank account not linked to it) and as forwardBankAccount.
 */
export async function forwardPsuBankAccount(
  deps: { db: Db; temporal: TemporalDeps },
  psuID: string,
  bankAccountID: string,
  connectorID: string,
): Promise<{ taskID: string }> {
  const linked =
    isUuid(psuID) &&
    isUuid(bankAccountID) &&
    (await deps.db('payments_psu_bank_accounts').where({ psu_id: psuID, bank_account_id: bankAccountID }).first());
  if (!linked) throw notFound(`bank account ${bankAccountID} is not one of payment service user ${psuID}'s`);
  return forwardBankAccount(deps, bankAccountID, connectorID);
}

/** Worker side: stores the provider's account and links it to the bank account (idempotent). */
export async function recordForwardedAccount(db: Db, id: string, connectorID: string, account: ProviderAccount): Promise<string> {
  return inTransaction(db, async (trx) => {
    const connector = await getConnectorRow(trx, connectorID);
    await upsertAccounts(trx, connectorID, connector.provider, [account]);
    const relatedID = accountId(connectorID, account.reference);
    const inserted = await trx('payments_bank_account_related_accounts')
      .insert({ bank_account_id: id, connector_id: connectorID, account_id: relatedID })
      .onConflict(['bank_account_id', 'connector_id'])
      .ignore()
      .returning('account_id');
    if (inserted.length) await emitSavedBankAccount(trx, id);
    return relatedID;
  });
}
