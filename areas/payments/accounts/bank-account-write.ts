import { randomUUID } from 'node:crypto';
import { notFound } from '../../../lib/errors';
import { inTransaction } from '../../../db/errors';
import { withIdempotencyKey } from '../../../db/idempotency';
import type { Db, Executor } from '../../../db/knex';
import { getBankAccount, type BankAccount } from './bank-account-read';
import { emitPaymentsEvents } from '../events';
import { stringifyJson } from '../../../lib/json';

export interface BankAccountInput {
  name: string;
  iban?: string;
  accountNumber?: string;
  swiftBicCode?: string;
  country?: string;
  metadata?: Record<string, string>;
}

/** SAVED_BANK_ACCOUNT carries the masked numbers: events leave the platform (webhooks). */
export async function emitSavedBankAccount(trx: Executor, id: string): Promise<void> {
  const account = await getBankAccount(trx, id);
  await emitPaymentsEvents(trx, [{ type: 'SAVED_BANK_ACCOUNT', payload: account }]);
}

/** Creates a bank account; IBAN or account number is required (checked by the schema). */
export async function createBankAccount(db: Db, input: BankAccountInput, options: { idempotencyKey?: string } = {}): Promise<string> {
  return inTransaction(db, async (trx) => {
    const { value } = await withIdempotencyKey(trx, { scope: 'payments.bank-accounts', key: options.idempotencyKey, request: input }, async () => {
      const id = randomUUID();
      await trx('payments_bank_accounts').insert({
        id,
        name: input.name,
        iban: input.iban?.replace(/\s+/g, '').toUpperCase() ?? null,
        account_number: input.accountNumber ?? null,
        swift_bic_code: input.swiftBicCode ?? null,
        country: input.country ?? null,
        metadata: stringifyJson(input.metadata ?? {}),
      });
      await emitSavedBankAccount(trx, id);
      return id;
    });
    return value;
  });
}

/** Merges `metadata` into the bank account's metadata. Throws NOT_FOUND. */
export async function updateBankAccountMetadata(db: Db, id: string, metadata: Record<string, string>): Promise<BankAccount> {
  return inTransaction(db, async (trx) => {
    await getBankAccount(trx, id);
    const updated = await trx('payments_bank_accounts')
      .where({ id })
      .update({ metadata: trx.raw('metadata || ?::jsonb', [stringifyJson(metadata)]) });
    if (updated === 0) throw notFound(`bank account ${id} not found`);
    await emitSavedBankAccount(trx, id);
    return getBankAccount(trx, id);
  });
}
