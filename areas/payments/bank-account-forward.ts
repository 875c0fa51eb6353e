import { ApiError, notFound } from '../../lib/errors';
import type { TemporalDeps } from '../../lib/temporal';
import { inTransaction } from '../../db/errors';
import type { Db } from '../../db/knex';
import { upsertAccounts, type ProviderAccount } from './accounts';
import { getBankAccount, type BankAccount } from './bank-account-read';
import { emitSavedBankAccount } from './bank-account-write';
import { requireCapability } from './connector-catalog';
import { getConnectorRow } from './connectors';
import { accountId } from './ids';
import { runBankAccountForward } from './engine';

/**
 * Forwards a bank account to a connector: the provider creates the matching EXTERNAL account, which becomes a related
 * account of the bank account. Runs as a Temporal workflow (retried if the provider is briefly down) that the request
 * waits for. Forwarding twice to the same connector returns the bank account unchanged. Throws NOT_FOUND, VALIDATION
 * (the provider refused), SERVICE_UNAVAILABLE.
 */
export async function forwardBankAccount(deps: { db: Db; temporal: TemporalDeps }, id: string, connectorID: string): Promise<BankAccount> {
  const bankAccount = await getBankAccount(deps.db, id);
  const connector = await getConnectorRow(deps.db, connectorID, { installed: true }).catch(() => {
    throw notFound(`connector ${connectorID} not found or uninstalled`);
  });
  requireCapability(connector, 'CREATE_BANK_ACCOUNT');
  if (bankAccount.relatedAccounts.some((r) => r.connectorID === connectorID)) return bankAccount;
  const outcome = await runBankAccountForward(deps.temporal, id, connectorID);
  if ('refused' in outcome) throw new ApiError('VALIDATION', `the connector could not create the account: ${outcome.refused}`);
  if ('unavailable' in outcome) throw new ApiError('SERVICE_UNAVAILABLE', 'could not run the forward on Temporal', { cause: outcome.unavailable });
  return getBankAccount(deps.db, id);
}

/** Worker side: stores the provider's account and links it to the bank account (idempotent). */
export async function recordForwardedAccount(db: Db, id: string, connectorID: string, account: ProviderAccount): Promise<string> {
  return inTransaction(db, async (trx) => {
    const connector = await getConnectorRow(trx, connectorID);
    await upsertAccounts(trx, connectorID, connector.provider, [account]);
    const relatedID = accountId(connectorID, account.reference);
    const inserted = await trx('payments_bank_account_related_accounts')
      .insert({ bank_account_id: id, connector_id: connectorID, account_id: relatedID }).onConflict(['bank_account_id', 'connector_id']).ignore().returning('account_id');
    if (inserted.length) await emitSavedBankAccount(trx, id);
    return relatedID;
  });
}
