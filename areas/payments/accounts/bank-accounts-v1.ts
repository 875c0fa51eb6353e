import type { TemporalDeps } from '../../../lib/temporal';
import type { Db, Executor } from '../../../db/knex';
import type { Page, PageRequest } from '../../../db/pagination';
import { ApiError } from '../../../lib/errors';
import { forwardBankAccount } from './bank-account-forward';
import { awaitTaskRun } from '../engine';
import { getBankAccount, listBankAccounts, type BankAccount } from './bank-account-read';
import { createBankAccount, type BankAccountInput } from './bank-account-write';

/** v1's BankAccount requires `country`; a bank account created without one (v3 allows it) reads as "". */
export type BankAccountV1 = BankAccount & { country: string };
const presentV1 = (b: BankAccount): BankAccountV1 => ({ ...b, country: b.country ?? '' });

/**
 * Payments v1's createBankAccount: with a `connectorID`, the bank account is forwarded to that connector at once (as
 * Formance v1 does), and the answer carries the related account. Throws NOT_FOUND (connector), VALIDATION,
 * SERVICE_UNAVAILABLE; a failed forward leaves the bank account created, as a v3 create then forward would.
 */
export async function createBankAccountV1(
  deps: { db: Db; temporal: TemporalDeps },
  input: BankAccountInput & { connectorID?: string },
): Promise<BankAccountV1> {
  const { connectorID, ...rest } = input;
  const id = await createBankAccount(deps.db, rest);
  return presentV1(connectorID ? await forwardAndWait(deps, id, connectorID) : await getBankAccount(deps.db, id));
}

export async function forwardBankAccountV1(deps: { db: Db; temporal: TemporalDeps }, id: string, connectorID: string): Promise<BankAccountV1> {
  return presentV1(await forwardAndWait(deps, id, connectorID));
}

/** v1 answers a forward with the bank account and its new related account: the v3 task, awaited (bounded). */
const FORWARD_WAIT_MS = 30_000;

async function forwardAndWait(deps: { db: Db; temporal: TemporalDeps }, id: string, connectorID: string): Promise<BankAccount> {
  const { taskID } = await forwardBankAccount(deps, id, connectorID);
  const run = await awaitTaskRun(deps.temporal, taskID, FORWARD_WAIT_MS);
  if (!run) throw new ApiError('SERVICE_UNAVAILABLE', `the forward is still running (task ${taskID}); read the bank account later`);
  if (run.error !== undefined) throw new ApiError('VALIDATION', `the connector refused the bank account: ${run.error}`);
  return getBankAccount(deps.db, id);
}

export async function listBankAccountsV1(db: Executor, page: PageRequest): Promise<Page<BankAccountV1>> {
  const list = await listBankAccounts(db, page);
  return { ...list, items: list.items.map(presentV1) };
}
