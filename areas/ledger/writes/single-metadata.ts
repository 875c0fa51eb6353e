import { getTransaction } from '../reads/transactions';
import { assertLedgerWritable } from '../ledgers';
import { assertAddress, assertMetadata } from '../rules/rules';
import { assertAccountInChart } from '../rules/schema-check';
import { findSchema } from '../rules/schemas';
import type { Executor } from '../types';
import { submit } from './create-transaction';
import { assertKey, type MetadataWrite } from './metadata-write';

/**
 * The single metadata writes (the v1 and v2 routes', a wallet's): each is a batch of one of the write pipeline, a
 * MetadataWrite, which joins the ledger's group commit when given the pool (submit) and runs in the caller's
 * transaction otherwise. What it does (the account created when absent, a deleted key that is not there changing
 * nothing, NOT_FOUND for a missing transaction, the log and the event) is the pipeline's metadata walk
 * (metadata-write.ts), the same as a bulk element's.
 */
async function commitMetadata(db: Executor, ledger: string, write: MetadataWrite): Promise<bigint | undefined> {
  return (await submit(db, ledger, write)).logId;
}

/**
 * Upserts the account and merges keys into its metadata, with a SET_METADATA log and a SAVED_METADATA event. With a
 * schema version the address must be an account of its chart; a dry run checks and writes nothing.
 * @returns the log's id (undefined for a dry run) @throws ApiError LEDGER_NOT_FOUND, VALIDATION, NOT_FOUND (schema version)
 */
export async function addAccountMetadata(
  db: Executor,
  ledger: string,
  address: string,
  metadata: Record<string, string>,
  options: { schemaVersion?: string; dryRun?: boolean } = {},
): Promise<bigint | undefined> {
  assertAddress(address, 'address');
  assertMetadata(metadata, 'metadata');
  if (options.schemaVersion !== undefined) assertAccountInChart(await findSchema(db, ledger, options.schemaVersion), address, 'address');
  await assertLedgerWritable(db, ledger);
  if (options.dryRun) return undefined;
  return commitMetadata(db, ledger, { target: { type: 'ACCOUNT', id: address }, change: { set: metadata } });
}

/**
 * Merges keys into a transaction's metadata, with a SET_METADATA log and a SAVED_METADATA event. A schema version is
 * only checked to exist (a transaction's metadata has no rule in a chart); a dry run checks and writes nothing.
 * @returns the log's id (undefined for a dry run) @throws ApiError LEDGER_NOT_FOUND, NOT_FOUND, VALIDATION
 */
export async function addTransactionMetadata(
  db: Executor,
  ledger: string,
  id: bigint,
  metadata: Record<string, string>,
  options: { schemaVersion?: string; dryRun?: boolean } = {},
): Promise<bigint | undefined> {
  assertMetadata(metadata, 'metadata');
  if (options.schemaVersion !== undefined) await findSchema(db, ledger, options.schemaVersion);
  await assertLedgerWritable(db, ledger);
  if (options.dryRun) {
    await getTransaction(db, ledger, id);
    return undefined;
  }
  return commitMetadata(db, ledger, { target: { type: 'TRANSACTION', id }, change: { set: metadata } });
}

/**
 * Removes one key from an account's metadata, with a DELETE_METADATA log and a DELETED_METADATA event. Deleting is
 * idempotent, as accounts exist implicitly: an absent key or an unused address is a no-op (no log, no event).
 * @returns the log's id, undefined when the key was not there @throws ApiError LEDGER_NOT_FOUND, VALIDATION
 */
export async function deleteAccountMetadata(db: Executor, ledger: string, address: string, key: string): Promise<bigint | undefined> {
  assertAddress(address, 'address');
  assertKey(key);
  await assertLedgerWritable(db, ledger);
  return commitMetadata(db, ledger, { target: { type: 'ACCOUNT', id: address }, change: { delete: key } });
}

/**
 * Removes one key from a transaction's metadata, with a DELETE_METADATA log and a DELETED_METADATA event; an absent
 * key is a no-op.
 * @returns the log's id, undefined when the key was not there @throws ApiError LEDGER_NOT_FOUND, NOT_FOUND (transaction), VALIDATION
 */
export async function deleteTransactionMetadata(db: Executor, ledger: string, id: bigint, key: string): Promise<bigint | undefined> {
  assertKey(key);
  await assertLedgerWritable(db, ledger);
  return commitMetadata(db, ledger, { target: { type: 'TRANSACTION', id }, change: { delete: key } });
}
