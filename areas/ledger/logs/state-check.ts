import { isApiError } from '../../../lib/errors';
import { canonicalJson } from '../../../lib/json';
import type { LedgerLog } from './log';
import { readLoggedTransaction, readMetadataChange, type LoggedTransaction } from './log-data';
import { isoTimestampText } from '../../../db/json-sql';
import type { Executor, Posting } from '../types';
import { pairKey, type VolumeMap } from '../reads/volumes';

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

/**
 * The ledger rebuilt from its log in memory, in one pass, log after log, through the ledger's rules (the import's
 * readers, log-replay.ts): the volumes of every (account, asset) summed as bigints, the metadata of every account, and,
 * for transactions, only which log created which txid and what happened to them after their creation (metadata changes
 * and reverts). A transaction's own log is not kept: the comparison reads its data in PostgreSQL (compareState), so
 * memory grows with accounts and two ids per transaction, not with the transactions' data.
 */
export class StateReplay {
  readonly volumes: VolumeMap = new Map();
  /** Every account a log names, with its metadata. */
  readonly accounts = new Map<string, Record<string, string>>();
  /** Metadata changes logged after a transaction's creation, in log order. */
  readonly transactionChanges = new Map<bigint, MetadataChange[]>();
  /** Transactions a REVERTED_TRANSACTION log names, with that log. */
  readonly reverted = new Map<bigint, bigint>();
  /** The transaction logs the replay took (not those already reported as broken), with the txid each creates, ascending. */
  readonly createdBy: Array<{ logId: bigint; txid: bigint }> = [];
  private nextTxid = 0n;

  constructor(private readonly mismatches: MismatchList) {}

  apply(log: LedgerLog): void {
    try {
      if (log.type === 'NEW_TRANSACTION' || log.type === 'REVERTED_TRANSACTION') this.transaction(log, readLoggedTransaction(log));
      else if (log.type === 'SET_METADATA' || log.type === 'DELETE_METADATA') this.metadata(log);
    } catch (error) {
      if (!isApiError(error)) throw error;
      const kind = log.type === 'NEW_TRANSACTION' || log.type === 'REVERTED_TRANSACTION' ? 'TRANSACTION_MISMATCH' : 'METADATA_MISMATCH';
      this.mismatches.add({ kind, logId: log.id, reason: `log ${log.id} breaks the ledger's rules: ${error.message}` });
    }
  }

  private account(address: string): Record<string, string> {
    let metadata = this.accounts.get(address);
    if (!metadata) this.accounts.set(address, (metadata = {}));
    return metadata;
  }

  private volume(address: string, asset: string): { input: bigint; output: bigint } {
    const key = pairKey(address, asset);
    let entry = this.volumes.get(key);
    if (!entry) {
      this.account(address);
      this.volumes.set(key, (entry = { address, asset, input: 0n, output: 0n }));
    }
    return entry;
  }

  private transaction(log: LedgerLog, tx: LoggedTransaction): void {
    const id = loggedTxid(tx);
    if (id === undefined || id < this.nextTxid) {
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
    this.createdBy.push({ logId: log.id, txid: id });
    // Funds are not checked: the write did, and a script may have allowed an overdraft that plain postings would not.
    for (const p of tx.postings) {
      this.volume(p.source, p.asset).output += p.amount;
      this.volume(p.destination, p.asset).input += p.amount;
    }
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

const volumeOf = (input: string | null, output: string | null) => (input === null ? null : { input: BigInt(input), output: BigInt(output!) });

/**
 * Stored volumes against the replay's, in one statement: the replay's (account, asset) pairs are sent as arrays and
 * joined in full with the ledger's volume rows; only the pairs that differ come back. A stored row no log moves is
 * fine while it is zero.
 */
async function compareVolumes(db: Executor, ledger: string, replay: StateReplay, mismatches: MismatchList): Promise<void> {
  const entries = [...replay.volumes.values()];
  const { rows } = (await db.raw(
    `SELECT coalesce(e.address, v.address) AS address, coalesce(e.asset, v.asset) AS asset,
            e.input::text AS expected_input, e.output::text AS expected_output, v.input::text AS input, v.output::text AS output
       FROM unnest(?::text[], ?::text[], ?::numeric[], ?::numeric[]) AS e(address, asset, input, output)
       FULL JOIN (SELECT address, asset, input, output FROM ledger_volumes WHERE ledger = ?) v ON v.address = e.address AND v.asset = e.asset
      WHERE v.address IS NULL OR (e.address IS NULL AND (v.input <> 0 OR v.output <> 0)) OR v.input <> e.input OR v.output <> e.output
      ORDER BY 1, 2`,
    [
      entries.map((e) => e.address),
      entries.map((e) => e.asset),
      entries.map((e) => e.input.toString()),
      entries.map((e) => e.output.toString()),
      ledger,
    ],
  )) as {
    rows: Array<{
      address: string;
      asset: string;
      expected_input: string | null;
      expected_output: string | null;
      input: string | null;
      output: string | null;
    }>;
  };
  replay.volumes.clear();
  for (const row of rows) {
    const expected = volumeOf(row.expected_input, row.expected_output) ?? { input: 0n, output: 0n };
    const actual = volumeOf(row.input, row.output);
    mismatches.add({
      kind: 'VOLUME_MISMATCH',
      account: row.address,
      asset: row.asset,
      expected,
      actual,
      reason: `account "${row.address}" holds ${actual ? `input ${actual.input}, output ${actual.output}` : 'no volumes'} of ${row.asset} where its log gives input ${expected.input}, output ${expected.output}`,
    });
  }
}

/**
 * Stored account metadata against the replay's, in one statement as the volumes are; the accounts PostgreSQL finds
 * different are compared again here as canonical JSON. An account row no log names is fine while its metadata is empty.
 */
async function compareAccounts(db: Executor, ledger: string, replay: StateReplay, mismatches: MismatchList): Promise<void> {
  const addresses = [...replay.accounts.keys()];
  const { rows } = (await db.raw(
    `SELECT coalesce(e.address, a.address) AS address, e.metadata AS expected, a.metadata AS actual, a.address IS NULL AS missing
       FROM unnest(?::text[], ?::jsonb[]) AS e(address, metadata)
       FULL JOIN (SELECT address, metadata FROM ledger_accounts WHERE ledger = ?) a ON a.address = e.address
      WHERE a.address IS NULL OR a.metadata IS DISTINCT FROM coalesce(e.metadata, '{}'::jsonb)
      ORDER BY 1`,
    [addresses, addresses.map((address) => canonicalJson(replay.accounts.get(address))), ledger],
  )) as { rows: Array<{ address: string; expected: Record<string, string> | null; actual: Record<string, string> | null; missing: boolean }> };
  replay.accounts.clear();
  for (const row of rows) {
    const expected = row.expected ?? {};
    if (!row.missing && canonicalJson(expected) === canonicalJson(row.actual)) continue;
    mismatches.add({
      kind: 'METADATA_MISMATCH',
      account: row.address,
      expected,
      actual: row.missing ? null : row.actual,
      reason: row.missing
        ? `account "${row.address}" is not stored`
        : `account "${row.address}" has metadata ${canonicalJson(row.actual)} where its log gives ${canonicalJson(expected)}`,
    });
  }
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

interface StoredTransaction {
  id: bigint;
  postings: Posting[];
  metadata: Record<string, string>;
  timestamp: Date;
  reference?: string;
  reverted: boolean;
}

const postingsJson = (postings: Posting[]) =>
  postings.map((p) => ({ source: p.source, destination: p.destination, amount: p.amount, asset: p.asset }));

/** The members of a stored transaction that differ from its log's, one mismatch each. */
function compareTransaction(expected: ExpectedTransaction, stored: StoredTransaction, mismatches: MismatchList): void {
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

interface TransactionCandidate {
  log_id: string | null;
  txid: string | null;
  reverted: boolean | null;
  logged: Record<string, unknown> | null;
  id: string | null;
  postings: Array<{ source: string; destination: string; amount: number | bigint; asset: string }> | null;
  metadata: Record<string, string> | null;
  timestamp: Date | null;
  reference: string | null;
  reverted_at: Date | null;
}

/**
 * Stored transactions against the logs', in one statement: the (log, txid) pairs the replay took, with whether each
 * txid was reverted and whether its metadata changed later, are joined with their logs (PostgreSQL reads the logged
 * transaction from the jsonb, the log is not parsed again here) and in full with the stored transactions. PostgreSQL
 * returns only the candidates: a transaction missing on either side, one whose metadata changed later, and one whose
 * postings, metadata, reference, timestamp (as the log writes it) or revert mark differ. Each candidate is then compared
 * here through the ledger's rules, so the statement only has to never miss a difference.
 */
async function compareTransactions(db: Executor, ledger: string, replay: StateReplay, mismatches: MismatchList): Promise<void> {
  const created = replay.createdBy;
  const { rows } = (await db.raw(
    `WITH e AS (SELECT * FROM unnest(?::bigint[], ?::bigint[], ?::boolean[], ?::boolean[]) AS e(log_id, txid, reverted, changed)),
          l AS (SELECT e.*, g.data->'transaction' AS logged FROM e JOIN ledger_logs g ON g.ledger = ? AND g.id = e.log_id),
          t AS (SELECT id, postings, metadata, timestamp, reference, reverted_at FROM ledger_transactions WHERE ledger = ?)
     SELECT l.log_id::text AS log_id, l.txid::text AS txid, l.reverted, l.logged,
            t.id::text AS id, t.postings, t.metadata, t.timestamp, t.reference, t.reverted_at
       FROM l FULL JOIN t ON t.id = l.txid
      WHERE l.txid IS NULL OR t.id IS NULL OR l.changed
         OR (t.reverted_at IS NOT NULL) <> l.reverted
         OR t.postings::jsonb IS DISTINCT FROM l.logged->'postings'
         OR t.reference IS DISTINCT FROM l.logged->>'reference'
         OR t.metadata IS DISTINCT FROM coalesce(l.logged->'metadata', '{}'::jsonb)
         OR ${isoTimestampText('t.timestamp')} IS DISTINCT FROM l.logged->>'timestamp'
      ORDER BY coalesce(l.txid, t.id)`,
    [
      created.map((c) => c.logId.toString()),
      created.map((c) => c.txid.toString()),
      created.map((c) => replay.reverted.has(c.txid)),
      created.map((c) => replay.transactionChanges.has(c.txid)),
      ledger,
      ledger,
    ],
  )) as { rows: TransactionCandidate[] };
  for (const row of rows) {
    if (row.id === null) {
      const id = BigInt(row.txid!);
      mismatches.add({
        kind: 'TRANSACTION_MISMATCH',
        logId: BigInt(row.log_id!),
        transactionId: id,
        expected: id,
        actual: null,
        reason: `transaction ${id}, created by log ${row.log_id}, is not stored`,
      });
      continue;
    }
    const storedId = BigInt(row.id);
    if (row.log_id === null) {
      mismatches.add({
        kind: 'TRANSACTION_MISMATCH',
        transactionId: storedId,
        expected: null,
        actual: storedId,
        reason: `transaction ${storedId} is stored but no log creates it`,
      });
      continue;
    }
    // The replay took this log: its transaction reads through the rules again without an error.
    const tx = readLoggedTransaction({ type: 'NEW_TRANSACTION', data: { transaction: row.logged } });
    const metadata = { ...tx.metadata };
    for (const change of replay.transactionChanges.get(storedId) ?? []) applyChange(metadata, change);
    compareTransaction(
      {
        logId: BigInt(row.log_id),
        id: storedId,
        postings: tx.postings,
        metadata,
        timestamp: tx.timestamp,
        ...(tx.reference !== undefined ? { reference: tx.reference } : {}),
        reverted: row.reverted === true,
      },
      {
        id: storedId,
        postings: row.postings!.map((p) => ({ source: p.source, destination: p.destination, amount: BigInt(p.amount), asset: p.asset })),
        metadata: row.metadata ?? {},
        timestamp: row.timestamp!,
        ...(row.reference !== null ? { reference: row.reference } : {}),
        reverted: row.reverted_at !== null,
      },
      mismatches,
    );
  }
}

/**
 * Compares what the ledger stores with what the replay rebuilt, a statement per table (volumes, account metadata,
 * transactions) that returns only what may differ. Run in the snapshot the logs were read in, so a write committed
 * meanwhile is in neither. `replay` is consumed.
 */
export async function compareState(db: Executor, ledger: string, replay: StateReplay, mismatches: MismatchList): Promise<void> {
  await compareVolumes(db, ledger, replay, mismatches);
  await compareAccounts(db, ledger, replay, mismatches);
  await compareTransactions(db, ledger, replay, mismatches);
}
