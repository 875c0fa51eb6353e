import { ApiError, validationError } from '../../../lib/errors';
import { canonicalJson } from '../../../lib/json';
import type { LogType } from './log';
import { assertAddress, assertMetadata, assertPostings } from '../rules/rules';
import type { Posting } from '../types';
import type { MetadataWrite } from '../writes/metadata-write';

/**
 * A log's data read back into what it records (a transaction, a metadata change), checked as the API checks a request,
 * and compared with what a replay computed: what log-replay.ts and the state check (state-check.ts) read from a log.
 */
export type Data = Record<string, unknown>;

export function record(value: unknown, where: string): Data {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw validationError(`${where}: must be an object`);
  return value as Data;
}

export function txid(value: unknown, where: string): bigint {
  if ((typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) || (typeof value === 'bigint' && value >= 0n)) return BigInt(value);
  throw validationError(`${where}: must be a transaction id`);
}

export function date(value: unknown, where: string): Date {
  const parsed = typeof value === 'string' ? new Date(value) : undefined;
  if (!parsed || Number.isNaN(parsed.getTime())) throw validationError(`${where}: must be an ISO 8601 date-time`);
  return parsed;
}

export function metadataOf(value: unknown, where: string): Record<string, string> {
  const metadata = value ?? {};
  assertMetadata(metadata, where);
  return metadata;
}

function postingsOf(value: unknown): Posting[] {
  if (!Array.isArray(value)) throw validationError('transaction.postings: must be an array');
  const postings = value.map((p, i) => {
    const where = `transaction.postings[${i}]`;
    const posting = record(p, where);
    const amount = posting.amount;
    // A fraction (1.5) or a double beyond 2^53 would reach BigInt() and throw, or lose digits: only exact integers pass.
    if (!((typeof amount === 'number' && Number.isSafeInteger(amount)) || typeof amount === 'bigint'))
      throw validationError(`${where}.amount: must be an integer`);
    for (const field of ['source', 'destination', 'asset'] as const) {
      if (typeof posting[field] !== 'string') throw validationError(`${where}.${field}: must be a string`);
    }
    return { source: posting.source as string, destination: posting.destination as string, amount: BigInt(amount), asset: posting.asset as string };
  });
  assertPostings(postings, 'transaction.postings');
  return postings;
}

/** A NEW_TRANSACTION or REVERTED_TRANSACTION log's transaction, as the ledger's rules read it. */
export interface LoggedTransaction {
  /** The txid the log recorded (not checked here against the ledger's sequence). */
  id: unknown;
  postings: Posting[];
  metadata: Record<string, string>;
  timestamp: Date;
  reference?: string;
  /** Account metadata a script set (NEW_TRANSACTION only). */
  accountMetadata: Record<string, Record<string, string>>;
  /** The transaction a REVERTED_TRANSACTION log reverts. */
  reverts?: bigint;
}

/**
 * Reads a transaction log through the write path's rules: postings as a write checks them, at least one, metadata,
 * timestamp, reference, account metadata. Used by the import's replay and by the state verification's (state-check.ts).
 * @throws ApiError VALIDATION, NO_POSTINGS
 */
export function readLoggedTransaction(log: { type: LogType; data: Data }): LoggedTransaction {
  const { data } = log;
  const tx = record(data.transaction, 'transaction');
  const accountMetadata = record(data.accountMetadata ?? {}, 'accountMetadata');
  for (const [address, metadata] of Object.entries(accountMetadata)) {
    assertAddress(address, 'accountMetadata');
    metadataOf(metadata, `accountMetadata.${address}`);
  }
  if (tx.reference !== undefined && typeof tx.reference !== 'string') throw validationError('transaction.reference: must be a string');
  const reference = tx.reference as string | undefined;
  const postings = postingsOf(tx.postings);
  if (postings.length === 0) throw new ApiError('NO_POSTINGS', 'transaction.postings: the transaction has no postings');
  return {
    id: tx.id,
    postings,
    metadata: metadataOf(tx.metadata, 'transaction.metadata'),
    timestamp: date(tx.timestamp, 'transaction.timestamp'),
    ...(reference !== undefined ? { reference } : {}),
    accountMetadata: accountMetadata as Record<string, Record<string, string>>,
    ...(log.type === 'REVERTED_TRANSACTION'
      ? { reverts: txid(record(data.revertedTransaction, 'revertedTransaction').id, 'revertedTransaction.id') }
      : {}),
  };
}

/** A SET_METADATA or DELETE_METADATA log's change, as the write functions take it. */
export type LoggedMetadataChange = ({ targetType: 'ACCOUNT'; targetId: string } | { targetType: 'TRANSACTION'; targetId: bigint }) &
  ({ set: Record<string, string> } | { remove: string });

export const targetOf = (change: LoggedMetadataChange): MetadataWrite['target'] =>
  change.targetType === 'ACCOUNT' ? { type: 'ACCOUNT', id: change.targetId } : { type: 'TRANSACTION', id: change.targetId };

/** Reads a metadata log through the write functions' rules. @throws ApiError VALIDATION */
export function readMetadataChange(log: { type: LogType; data: Data }): LoggedMetadataChange {
  const { data } = log;
  const change =
    log.type === 'SET_METADATA'
      ? { set: metadataOf(data.metadata, 'metadata') }
      : (() => {
          if (typeof data.key !== 'string') throw validationError('key: must be a string');
          return { remove: data.key };
        })();
  if (data.targetType === 'ACCOUNT') {
    if (typeof data.targetId !== 'string') throw validationError('targetId: must be an account address');
    assertAddress(data.targetId, 'targetId');
    return { targetType: 'ACCOUNT', targetId: data.targetId, ...change };
  }
  if (data.targetType === 'TRANSACTION') return { targetType: 'TRANSACTION', targetId: txid(data.targetId, 'targetId'), ...change };
  throw validationError('targetType: must be ACCOUNT or TRANSACTION');
}

/** The replay must hand out the txid the log recorded: otherwise the logs describe another ledger than the one rebuilt. */
export function assertSameTxid(expected: unknown, got: bigint): void {
  if (txid(expected, 'transaction.id') !== got)
    throw validationError(`transaction.id is ${String(expected)} but the replay gives transaction ${got}`);
}

/** The first path where two JSON values differ, for a message that says what a log got wrong. */
function firstDifference(given: unknown, computed: unknown, path: string): string | undefined {
  if (canonicalJson(given) === canonicalJson(computed)) return undefined;
  if (
    given !== null &&
    computed !== null &&
    typeof given === 'object' &&
    typeof computed === 'object' &&
    Array.isArray(given) === Array.isArray(computed)
  ) {
    const a = given as Record<string, unknown>;
    const b = computed as Record<string, unknown>;
    for (const key of [...new Set([...Object.keys(b), ...Object.keys(a)])].sort()) {
      const inner = firstDifference(a[key], b[key], path === '' ? key : `${path}.${key}`);
      if (inner) return inner;
    }
  }
  return `${path || 'data'} is ${canonicalJson(given) ?? 'absent'} where the ledger's rules give ${canonicalJson(computed) ?? 'absent'}`;
}

/**
 * A log must say exactly what replaying it through the ledger's rules writes: a log claiming anything else (volumes,
 * a revert that does not mirror its original, an extra member) is refused, so the ledger stores exactly the logs given.
 * @returns the problem, or undefined when they are the same JSON value
 */
export function dataMismatch(given: unknown, computed: unknown): string | undefined {
  const difference = firstDifference(given, computed, '');
  return difference ? `the log does not match its replay: ${difference}` : undefined;
}

export function assertSameData(given: unknown, computed: unknown): void {
  const problem = dataMismatch(given, computed);
  if (problem) throw validationError(problem);
}
