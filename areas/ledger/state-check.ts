import { isApiError } from '../../lib/errors';
import { canonicalJson } from '../../lib/json';
import type { LedgerLog } from './log';
import { readLoggedTransaction, readMetadataChange, type LoggedTransaction } from './log-replay';
import { TRANSACTION_ROW_COLUMNS } from './transaction-json';
import { presentTransaction, type TransactionRow } from './transactions';
import type { Executor, LedgerTransaction, Posting } from './types';
import { applyPostings, pairKey, type VolumeMap } from './volumes';

export type MismatchKind = 'HASH_MISMATCH' | 'SEQUENCE_GAP' | 'VOLUME_MISMATCH' | 'METADATA_MISMATCH' | 'TRANSACTION_MISMATCH';

/** One difference between the ledger's log and what it stores. `expected` is what the log gives, `actual` what is stored. */
export interface Mismatch {
  kind: MismatchKind;
  reason: string;
  logId?: bigint;
  account?: string;
  asset?: string;
  transactionId?: bigint;
  /** The member of a transaction that differs (postings, metadata, timestamp, reference, reverted). */
  field?: string;
  expected?: unknown;
  actual?: unknown;
}

/** The mismatches an answer lists; the count goes on past them. */
export const MISMATCHES_LISTED = 100;

export class MismatchList {
  readonly listed: Mismatch[] = [];
  count = 0;

  add(mismatch: Mismatch): void {
    this.count += 1;
    if (this.listed.length < MISMATCHES_LISTED) this.listed.push(mismatch);
  }
}

type MetadataChange = { set: Record<string, string> } | { remove: string };

const applyChange = (metadata: Record<string, string>, change: MetadataChange): void => {
  if ('set' in change) Object.assign(metadata, change.set);
  else delete metadata[change.remove];
};

/** Logs read per page in the second pass, and stored rows per page in every comparison. */
const PAGE = 1000;

/**
 * The ledger rebuilt from its log in memory, log after log, through the ledger's rules (the import's readers,
 * log-replay.ts, and applyPostings): the volumes of every (account, asset), the metadata of every account, and, for
 * transactions, only what happened to them after their creation (metadata changes and reverts), since a transaction's
 * own log is read again in the comparison (a second pass) rather than kept: memory grows with accounts and later
 * changes, not with transactions.
 */
export class StateReplay {
  readonly volumes: VolumeMap = new Map();
  /** Every account a log names, with its metadata. */
  readonly accounts = new Map<string, Record<string, string>>();
  /** Metadata changes logged after a transaction's creation, in log order. */
  readonly transactionChanges = new Map<bigint, MetadataChange[]>();
  /** Transactions a REVERTED_TRANSACTION log names, with that log. */
  readonly reverted = new Map<bigint, bigint>();
  /** Transaction logs the replay could not take (already reported): the comparison leaves them out. */
  readonly skipped = new Set<bigint>();
  private nextTxid = 0n;

  constructor(private readonly mismatches: MismatchList) {}

  apply(log: LedgerLog): void {
    try {
      if (log.type === 'NEW_TRANSACTION' || log.type === 'REVERTED_TRANSACTION') this.transaction(log, readLoggedTransaction(log));
      else if (log.type === 'SET_METADATA' || log.type === 'DELETE_METADATA') this.metadata(log);
    } catch (error) {
      if (!isApiError(error)) throw error;
      const kind = log.type === 'NEW_TRANSACTION' || log.type === 'REVERTED_TRANSACTION' ? 'TRANSACTION_MISMATCH' : 'METADATA_MISMATCH';
      if (kind === 'TRANSACTION_MISMATCH') this.skipped.add(log.id);
      this.mismatches.add({ kind, logId: log.id, reason: `log ${log.id} breaks the ledger's rules: ${error.message}` });
    }
  }

  private account(address: string): Record<string, string> {
    let metadata = this.accounts.get(address);
    if (!metadata) this.accounts.set(address, (metadata = {}));
    return metadata;
  }

  private transaction(log: LedgerLog, tx: LoggedTransaction): void {
    const id = loggedTxid(tx);
    if (id === undefined || id < this.nextTxid) {
      this.skipped.add(log.id);
      this.mismatches.add({
        kind: 'SEQUENCE_GAP',
        logId: log.id,
        reason: `log ${log.id}: transaction id ${String(tx.id)} where the next is ${this.nextTxid}`,
        expected: this.nextTxid,
        actual: tx.id,
      });
      return;
    }
    if (id > this.nextTxid) {
      this.mismatches.add({
        kind: 'SEQUENCE_GAP',
        logId: log.id,
        reason: `log ${log.id}: transaction ${id} follows ${this.nextTxid - 1n}: no log creates ${this.nextTxid}..${id - 1n}`,
        expected: this.nextTxid,
        actual: id,
      });
    }
    if (tx.reverts !== undefined) {
      const problem =
        tx.reverts >= id
          ? 'does not exist yet'
          : this.reverted.has(tx.reverts)
            ? `is already reverted by log ${this.reverted.get(tx.reverts)}`
            : undefined;
      if (problem) {
        this.mismatches.add({
          kind: 'TRANSACTION_MISMATCH',
          logId: log.id,
          transactionId: tx.reverts,
          reason: `log ${log.id} reverts transaction ${tx.reverts}, which ${problem}`,
        });
      } else this.reverted.set(tx.reverts, log.id);
    }
    this.nextTxid = id + 1n;
    for (const p of tx.postings) {
      for (const address of [p.source, p.destination]) {
        this.account(address);
        const key = pairKey(address, p.asset);
        if (!this.volumes.has(key)) this.volumes.set(key, { address, asset: p.asset, input: 0n, output: 0n });
      }
    }
    // Funds are not checked: the write did, and a script may have allowed an overdraft that plain postings would not.
    for (const [key, entry] of applyPostings(this.volumes, tx.postings, false).changed) this.volumes.set(key, entry);
    for (const [address, metadata] of Object.entries(tx.accountMetadata)) Object.assign(this.account(address), metadata);
  }

  private metadata(log: LedgerLog): void {
    const change = readMetadataChange(log);
    if (change.targetType === 'ACCOUNT') {
      applyChange(this.account(change.targetId), change);
      return;
    }
    if (change.targetId >= this.nextTxid) {
      this.mismatches.add({
        kind: 'METADATA_MISMATCH',
        logId: log.id,
        transactionId: change.targetId,
        reason: `log ${log.id} changes the metadata of transaction ${change.targetId}, which does not exist yet`,
      });
      return;
    }
    const changes = this.transactionChanges.get(change.targetId) ?? [];
    changes.push(change);
    this.transactionChanges.set(change.targetId, changes);
  }
}

function loggedTxid(tx: LoggedTransaction): bigint | undefined {
  const { id } = tx;
  if (typeof id === 'bigint' && id >= 0n) return id;
  if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) return BigInt(id);
  return undefined;
}

/** Pages of rows by a keyset over `key` (the table's primary key after `ledger`), in the snapshot of `db`. */
async function* pages<T extends object>(
  db: Executor,
  table: string,
  ledger: string,
  key: string[],
  columns: string[],
  where?: (q: ReturnType<Executor>) => void,
): AsyncGenerator<T[]> {
  let after: unknown[] | undefined;
  for (;;) {
    const query = db(table)
      .where({ ledger })
      .orderBy(key)
      .limit(PAGE)
      .select(...columns);
    if (where) where(query);
    if (after) query.whereRaw(`(${key.join(', ')}) > (${key.map(() => '?').join(', ')})`, after as never[]);
    const rows = (await query) as T[];
    if (rows.length > 0) yield rows;
    if (rows.length < PAGE) return;
    const last = rows[rows.length - 1] as Record<string, unknown>;
    after = key.map((k) => last[k]);
  }
}

const volumeText = (v: { input: bigint; output: bigint } | undefined) => (v ? { input: v.input, output: v.output } : { input: 0n, output: 0n });

/** Stored volumes against the replay's, a page at a time. Empties `replay.volumes` as it goes. */
async function compareVolumes(db: Executor, ledger: string, replay: StateReplay, mismatches: MismatchList): Promise<void> {
  const mismatch = (address: string, asset: string, expected: { input: bigint; output: bigint }, actual: { input: bigint; output: bigint } | null) =>
    mismatches.add({
      kind: 'VOLUME_MISMATCH',
      account: address,
      asset,
      expected,
      actual,
      reason: `account "${address}" holds ${actual ? `input ${actual.input}, output ${actual.output}` : 'no volumes'} of ${asset} where its log gives input ${expected.input}, output ${expected.output}`,
    });
  const columns = ['address', 'asset', db.raw('input::text AS input') as never, db.raw('output::text AS output') as never];
  for await (const rows of pages<{ address: string; asset: string; input: string; output: string }>(
    db,
    'ledger_volumes',
    ledger,
    ['address', 'asset'],
    columns,
  )) {
    for (const row of rows) {
      const key = pairKey(row.address, row.asset);
      const expected = volumeText(replay.volumes.get(key));
      replay.volumes.delete(key);
      const actual = { input: BigInt(row.input), output: BigInt(row.output) };
      if (actual.input !== expected.input || actual.output !== expected.output) mismatch(row.address, row.asset, expected, actual);
    }
  }
  for (const entry of replay.volumes.values()) mismatch(entry.address, entry.asset, volumeText(entry), null);
}

/** Stored account metadata against the replay's. An account row no log names is fine while its metadata is empty. */
async function compareAccounts(db: Executor, ledger: string, replay: StateReplay, mismatches: MismatchList): Promise<void> {
  const mismatch = (address: string, expected: Record<string, string> | null, actual: Record<string, string> | null) =>
    mismatches.add({
      kind: 'METADATA_MISMATCH',
      account: address,
      expected,
      actual,
      reason:
        actual === null
          ? `account "${address}" is not stored`
          : `account "${address}" has metadata ${canonicalJson(actual)} where its log gives ${canonicalJson(expected ?? {})}`,
    });
  for await (const rows of pages<{ address: string; metadata: Record<string, string> }>(
    db,
    'ledger_accounts',
    ledger,
    ['address'],
    ['address', 'metadata'],
  )) {
    for (const row of rows) {
      const expected = replay.accounts.get(row.address) ?? {};
      replay.accounts.delete(row.address);
      if (canonicalJson(expected) !== canonicalJson(row.metadata)) mismatch(row.address, expected, row.metadata);
    }
  }
  for (const [address, metadata] of replay.accounts) mismatch(address, metadata, null);
}

interface ExpectedTransaction {
  logId: bigint;
  id: bigint;
  postings: Posting[];
  metadata: Record<string, string>;
  timestamp: Date;
  reference?: string;
  reverted: boolean;
}

const postingsJson = (postings: Posting[]) =>
  postings.map((p) => ({ source: p.source, destination: p.destination, amount: p.amount, asset: p.asset }));

const samePostings = (a: Posting[], b: Posting[]): boolean =>
  a.length === b.length &&
  a.every((p, i) => p.source === b[i].source && p.destination === b[i].destination && p.amount === b[i].amount && p.asset === b[i].asset);

/** The members of a stored transaction that differ from its log's, one mismatch each. */
function compareTransaction(expected: ExpectedTransaction, stored: LedgerTransaction, mismatches: MismatchList): void {
  // The common case, every member equal, is decided without serializing anything: this runs once per transaction.
  if (
    samePostings(expected.postings, stored.postings) &&
    expected.timestamp.getTime() === stored.timestamp.getTime() &&
    expected.reference === stored.reference &&
    expected.reverted === stored.reverted &&
    canonicalJson(expected.metadata) === canonicalJson(stored.metadata)
  ) {
    return;
  }
  const differ = (field: string, kind: 'TRANSACTION_MISMATCH' | 'METADATA_MISMATCH', want: unknown, got: unknown) => {
    if (canonicalJson(want) === canonicalJson(got)) return;
    mismatches.add({
      kind,
      logId: expected.logId,
      transactionId: expected.id,
      field,
      expected: want,
      actual: got,
      reason: `transaction ${expected.id}: ${field} is ${canonicalJson(got) ?? 'absent'} where log ${expected.logId} and the logs after it give ${canonicalJson(want) ?? 'absent'}`,
    });
  };
  differ('postings', 'TRANSACTION_MISMATCH', postingsJson(expected.postings), postingsJson(stored.postings));
  differ('timestamp', 'TRANSACTION_MISMATCH', expected.timestamp, stored.timestamp);
  differ('reference', 'TRANSACTION_MISMATCH', expected.reference, stored.reference);
  differ('reverted', 'TRANSACTION_MISMATCH', expected.reverted, stored.reverted);
  differ('metadata', 'METADATA_MISMATCH', expected.metadata, stored.metadata);
}

/** The transactions the logs create, in txid order, with the changes logged after their creation applied. */
async function* expectedTransactions(db: Executor, ledger: string, replay: StateReplay): AsyncGenerator<ExpectedTransaction> {
  const types = (q: ReturnType<Executor>) => void q.whereIn('type', ['NEW_TRANSACTION', 'REVERTED_TRANSACTION']);
  for await (const rows of pages<{ id: string; type: 'NEW_TRANSACTION' | 'REVERTED_TRANSACTION'; data: Record<string, unknown> }>(
    db,
    'ledger_logs',
    ledger,
    ['id'],
    ['id', 'type', 'data'],
    types,
  )) {
    for (const row of rows) {
      const logId = BigInt(row.id);
      if (replay.skipped.has(logId)) continue;
      const tx = readLoggedTransaction(row);
      const id = loggedTxid(tx)!;
      const metadata = { ...tx.metadata };
      for (const change of replay.transactionChanges.get(id) ?? []) applyChange(metadata, change);
      yield {
        logId,
        id,
        postings: tx.postings,
        metadata,
        timestamp: tx.timestamp,
        ...(tx.reference !== undefined ? { reference: tx.reference } : {}),
        reverted: replay.reverted.has(id),
      };
    }
  }
}

/** Stored transactions against the logs', merged in txid order (both ascend). */
async function compareTransactions(db: Executor, ledger: string, replay: StateReplay, mismatches: MismatchList): Promise<void> {
  const stored = (async function* storedTransactions() {
    for await (const rows of pages<TransactionRow>(db, 'ledger_transactions', ledger, ['id'], [...TRANSACTION_ROW_COLUMNS]))
      yield* rows.map(presentTransaction);
  })();
  const missing = (tx: ExpectedTransaction) =>
    mismatches.add({
      kind: 'TRANSACTION_MISMATCH',
      logId: tx.logId,
      transactionId: tx.id,
      expected: tx.id,
      actual: null,
      reason: `transaction ${tx.id}, created by log ${tx.logId}, is not stored`,
    });
  const extra = (tx: LedgerTransaction) =>
    mismatches.add({
      kind: 'TRANSACTION_MISMATCH',
      transactionId: tx.id,
      expected: null,
      actual: tx.id,
      reason: `transaction ${tx.id} is stored but no log creates it`,
    });
  let next = await stored.next();
  for await (const tx of expectedTransactions(db, ledger, replay)) {
    while (!next.done && next.value.id < tx.id) {
      extra(next.value);
      next = await stored.next();
    }
    if (next.done || next.value.id > tx.id) {
      missing(tx);
      continue;
    }
    compareTransaction(tx, next.value, mismatches);
    next = await stored.next();
  }
  for (; !next.done; next = await stored.next()) extra(next.value);
}

/**
 * Compares what the ledger stores with what the replay rebuilt: volumes, account metadata, then transactions (the
 * second pass over the transaction logs). Run in the snapshot the logs were read in, so a write committed meanwhile
 * is in neither. `replay` is consumed.
 */
export async function compareState(db: Executor, ledger: string, replay: StateReplay, mismatches: MismatchList): Promise<void> {
  await compareVolumes(db, ledger, replay, mismatches);
  await compareAccounts(db, ledger, replay, mismatches);
  await compareTransactions(db, ledger, replay, mismatches);
}
