import type { Knex } from 'knex';
import { ApiError, validationError } from '../../lib/errors';
import { writeAccountMetadata } from './accounts';
import { commitTransaction } from './commit';
import { removeAccountMetadata, removeTransactionMetadata } from './delete-metadata';
import type { LogType } from './log';
import { commitRevert } from './revert-transaction';
import { assertAddress, assertMetadata, assertPostings } from './rules';
import { checkSchemaData, writeSchema } from './schemas';
import { writeTransactionMetadata } from './transactions';
import type { Posting } from './types';

type Data = Record<string, unknown>;

function record(value: unknown, where: string): Data {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw validationError(`${where}: must be an object`);
  return value as Data;
}

function txid(value: unknown, where: string): bigint {
  if ((typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) || (typeof value === 'bigint' && value >= 0n)) return BigInt(value);
  throw validationError(`${where}: must be a transaction id`);
}

function date(value: unknown, where: string): Date {
  const parsed = typeof value === 'string' ? new Date(value) : undefined;
  if (!parsed || Number.isNaN(parsed.getTime())) throw validationError(`${where}: must be an ISO 8601 date-time`);
  return parsed;
}

function metadataOf(value: unknown, where: string): Record<string, string> {
  const metadata = value ?? {};
  assertMetadata(metadata, where);
  return metadata;
}

function postingsOf(value: unknown): Posting[] {
  if (!Array.isArray(value)) throw validationError('transaction.postings: must be an array');
  const postings = value.map((p, i) => {
    const posting = record(p, `transaction.postings[${i}]`);
    const amount = posting.amount;
    if (typeof amount !== 'number' && typeof amount !== 'bigint') throw validationError(`transaction.postings[${i}].amount: must be an integer`);
    return { source: String(posting.source), destination: String(posting.destination), amount: BigInt(amount), asset: String(posting.asset) };
  });
  assertPostings(postings, 'transaction.postings');
  return postings;
}

/** The replay must hand out the txid the log recorded: otherwise the logs describe another ledger than the one rebuilt. */
function assertSameTxid(expected: unknown, got: bigint): void {
  if (txid(expected, 'transaction.id') !== got) throw validationError(`transaction.id is ${String(expected)} but the replay created transaction ${got}`);
}

/**
 * Applies one log through the write path, inside the import's transaction, with the log's own date. Funds are not
 * checked again (`force`): the source ledger checked them, and a script may have allowed an overdraft that plain
 * postings would not. A delete of an absent key is refused, as the source wrote no log for one.
 * @throws ApiError VALIDATION, NOT_FOUND, ALREADY_REVERT, CONFLICT (reference)
 */
export async function replayLog(trx: Knex.Transaction, ledger: string, log: { type: LogType; date: Date; data: Data }): Promise<void> {
  const { data } = log;
  switch (log.type) {
    case 'NEW_TRANSACTION': {
      const tx = record(data.transaction, 'transaction');
      const accountMetadata = record(data.accountMetadata ?? {}, 'accountMetadata');
      for (const [address, metadata] of Object.entries(accountMetadata)) {
        assertAddress(address, 'accountMetadata');
        metadataOf(metadata, `accountMetadata.${address}`);
      }
      const input = {
        postings: postingsOf(tx.postings),
        metadata: metadataOf(tx.metadata, 'transaction.metadata'),
        timestamp: date(tx.timestamp, 'transaction.timestamp'),
        ...(typeof tx.reference === 'string' ? { reference: tx.reference } : {}),
      };
      const replay = { date: log.date, accountMetadata: accountMetadata as Record<string, Record<string, string>> };
      const { transaction } = await commitTransaction(trx, ledger, input, { force: true, replay });
      return assertSameTxid(tx.id, transaction.id);
    }
    case 'REVERTED_TRANSACTION': {
      const tx = record(data.transaction, 'transaction');
      const original = txid(record(data.revertedTransaction, 'revertedTransaction').id, 'revertedTransaction.id');
      const revert = { force: true, metadata: metadataOf(tx.metadata, 'transaction.metadata'), timestamp: date(tx.timestamp, 'transaction.timestamp'), logDate: log.date };
      const { revert: created } = await commitRevert(trx, ledger, original, revert);
      return assertSameTxid(tx.id, created.id);
    }
    case 'SET_METADATA': {
      const metadata = metadataOf(data.metadata, 'metadata');
      if (data.targetType === 'ACCOUNT') {
        assertAddress(String(data.targetId), 'targetId');
        await writeAccountMetadata(trx, ledger, String(data.targetId), metadata, log.date);
        return;
      }
      if (data.targetType === 'TRANSACTION') {
        await writeTransactionMetadata(trx, ledger, txid(data.targetId, 'targetId'), metadata, log.date);
        return;
      }
      throw validationError('targetType: must be ACCOUNT or TRANSACTION');
    }
    case 'INSERTED_SCHEMA': {
      // The schema's own checks run again: an export edited by hand must not bring in a chart the API would refuse.
      const { version, createdAt: _createdAt, ...rest } = record(data.schema, 'schema');
      await writeSchema(trx, ledger, String(version), checkSchemaData(String(version), rest), log.date);
      return;
    }
    case 'DELETE_METADATA': {
      if (typeof data.key !== 'string') throw validationError('key: must be a string');
      let removed: bigint | undefined;
      if (data.targetType === 'ACCOUNT') removed = await removeAccountMetadata(trx, ledger, String(data.targetId), data.key, log.date);
      else if (data.targetType === 'TRANSACTION') removed = await removeTransactionMetadata(trx, ledger, txid(data.targetId, 'targetId'), data.key, log.date);
      else throw validationError('targetType: must be ACCOUNT or TRANSACTION');
      if (removed === undefined) throw new ApiError('VALIDATION', `key "${data.key}" is not set on ${String(data.targetId)}`);
      return;
    }
  }
}
