import { randomUUID } from 'node:crypto';
import { ApiError, notFound, validationError } from '../../../lib/errors';
import type { TemporalDeps } from '../../../lib/temporal';
import { inTransaction } from '../../../db/errors';
import { withIdempotencyKey } from '../../../db/idempotency';
import type { Db, Executor } from '../../../db/knex';
import { keysetPage, type Page, type PageRequest } from '../../../db/pagination';
import { startPaymentServiceUserDelete } from '../engine';
import { isUuid } from '../ids';
import { stringifyJson } from '../../../lib/json';

export interface ContactDetails {
  email?: string;
  phoneNumber?: string;
  locale?: string;
}
export interface Address {
  streetNumber?: string;
  streetName?: string;
  city?: string;
  region?: string;
  postalCode?: string;
  country?: string;
}
export interface PaymentServiceUserInput {
  name: string;
  contactDetails?: ContactDetails;
  address?: Address;
  bankAccountIDs?: string[];
  metadata?: Record<string, string>;
}
export interface PaymentServiceUser extends PaymentServiceUserInput {
  id: string;
  createdAt: Date;
  bankAccountIDs: string[];
  metadata: Record<string, string>;
}

/** Refuses bank account ids that do not exist: a reference in a body that points nowhere is the caller's mistake. */
async function assertBankAccountsExist(trx: Executor, ids: string[]): Promise<void> {
  const malformed = ids.find((id) => !isUuid(id));
  const found = malformed ? [] : await trx('payments_bank_accounts').whereIn('id', ids).pluck('id');
  const missing = malformed ?? ids.find((id) => !found.includes(id.toLowerCase()));
  if (missing) throw validationError(`body.bankAccountIDs: bank account ${missing} does not exist`);
}

/** Op 3. Throws VALIDATION (an unknown bank account). */
export async function createPaymentServiceUser(db: Db, input: PaymentServiceUserInput, options: { idempotencyKey?: string } = {}): Promise<string> {
  return inTransaction(db, async (trx) => {
    const { value } = await withIdempotencyKey(trx, { scope: 'payments.psus', key: options.idempotencyKey, request: input }, async () => {
      const bankAccountIDs = [...new Set((input.bankAccountIDs ?? []).map((id) => id.toLowerCase()))];
      await assertBankAccountsExist(trx, bankAccountIDs);
      const id = randomUUID();
      await trx('payments_psus').insert({
        id,
        name: input.name,
        contact_details: input.contactDetails ? stringifyJson(input.contactDetails) : null,
        address: input.address ? stringifyJson(input.address) : null,
        metadata: stringifyJson(input.metadata ?? {}),
      });
      if (bankAccountIDs.length) await trx('payments_psu_bank_accounts').insert(bankAccountIDs.map((b) => ({ psu_id: id, bank_account_id: b })));
      return id;
    });
    return value;
  });
}

async function present(db: Executor, rows: any[]): Promise<PaymentServiceUser[]> {
  const links = rows.length
    ? await db('payments_psu_bank_accounts')
        .whereIn(
          'psu_id',
          rows.map((r) => r.id),
        )
        .orderBy('bank_account_id')
    : [];
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    createdAt: r.created_at,
    ...(r.contact_details ? { contactDetails: r.contact_details } : {}),
    ...(r.address ? { address: r.address } : {}),
    bankAccountIDs: links.filter((l: any) => l.psu_id === r.id).map((l: any) => l.bank_account_id),
    metadata: r.metadata ?? {},
  }));
}

/** Op 4. Throws NOT_FOUND. */
export async function getPaymentServiceUser(db: Executor, id: string): Promise<PaymentServiceUser> {
  const row = isUuid(id) ? await db('payments_psus').where({ id }).first() : undefined;
  if (!row) throw notFound(`payment service user ${id} not found`);
  return (await present(db, [row]))[0];
}

export async function listPaymentServiceUsers(db: Executor, page: PageRequest): Promise<Page<PaymentServiceUser>> {
  const rows = await keysetPage<any>(db('payments_psus').select('*'), ['created_at', 'id'], 'desc', page);
  return { ...rows, items: await present(db, rows.items) };
}

export const paymentServiceUserKey = (u: PaymentServiceUser): unknown[] => [u.createdAt.toISOString(), u.id];

/** Links an existing bank account (idempotent). Throws NOT_FOUND for either side. */
export async function linkBankAccount(db: Db, psuId: string, bankAccountId: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    await getPaymentServiceUser(trx, psuId);
    const exists = isUuid(bankAccountId) && (await trx('payments_bank_accounts').where({ id: bankAccountId }).first());
    if (!exists) throw notFound(`bank account ${bankAccountId} not found`);
    await trx('payments_psu_bank_accounts')
      .insert({ psu_id: psuId, bank_account_id: bankAccountId })
      .onConflict(['psu_id', 'bank_account_id'])
      .ignore();
  });
}

/**
 * Formance's asynchronous deletion: checks the user exists, then starts the task that deletes it (read with getTask).
 * Throws NOT_FOUND, SERVICE_UNAVAILABLE (Temporal unreachable).
 */
export async function deletePaymentServiceUser(deps: { db: Db; temporal: TemporalDeps }, id: string): Promise<{ taskID: string }> {
  await getPaymentServiceUser(deps.db, id);
  try {
    return { taskID: await startPaymentServiceUserDelete(deps.temporal, id) };
  } catch (error) {
    throw new ApiError('SERVICE_UNAVAILABLE', 'could not start the deletion on Temporal', { cause: error });
  }
}

/** Worker side: deletes the user and its links; its bank accounts stay (they may be forwarded to connectors). */
export async function removePaymentServiceUser(db: Db, id: string): Promise<void> {
  if (isUuid(id)) await db('payments_psus').where({ id }).delete();
}
