import type { Knex } from 'knex';
import { ApiError } from '../../lib/errors';
import { stringifyJson } from '../../lib/json';
import { logTransactionView } from './log';
import { scriptedWrite } from './script';
import { headJsonSql, TRANSACTION_ROW_COLUMNS } from './transaction-json';
import { presentTransaction, type TransactionRow } from './transactions';
import type { CreateTransactionInput, LedgerTransaction, Posting } from './types';
import { applyPostings, lockVolumes, writeVolumes, type VolumeMap } from './volumes';

export interface CommitOptions {
  /** Plain postings are funds-checked unless forced (a forced revert); a script's own checks are the interpreter's. */
  force?: boolean;
  /** The log this write appends: NEW_TRANSACTION unless it is a revert, whose log names the transaction it reverts. */
  log?: { type: 'NEW_TRANSACTION' } | { type: 'REVERTED_TRANSACTION'; revertedTransaction: unknown };
  /** Volumes this transaction has locked already (WriteHooks.lockFirst): a script then runs once, on them. */
  locked?: VolumeMap;
  /** A log import's replay: the original log's date, and the account metadata its script had set. */
  replay?: { date: Date; accountMetadata: Record<string, Record<string, string>> };
}

export interface Committed {
  transaction: LedgerTransaction;
  accountMetadata: Record<string, Record<string, string>>;
}

/**
 * The write path of every ledger transaction, inside the caller's database transaction:
 * lock the touched volume rows (sorted), resolve postings (plain, or a script run against locked balances), check
 * funds, write the new volumes and the accounts, then take the next txid and insert the transaction in one statement.
 * The txid counter row is locked last and held only for the insert and the commit, which keeps txids dense without
 * serialising the rest of the work. The same statement takes the next log id from that row and appends the log, its
 * data carrying the txid only known there.
 * @throws ApiError CONFLICT (reference), INSUFFICIENT_FUND, NO_POSTINGS, METADATA_OVERRIDE, COMPILATION_FAILED, VALIDATION, LEDGER_NOT_FOUND
 */
export async function commitTransaction(trx: Knex.Transaction, ledger: string, input: CreateTransactionInput, options: CommitOptions = {}): Promise<Committed> {
  if (input.reference !== undefined) {
    const taken = await trx('ledger_transactions').where({ ledger, reference: input.reference }).first('id');
    if (taken) throw new ApiError('CONFLICT', `reference "${input.reference}" is already used by transaction ${taken.id} of ledger "${ledger}"`);
  }
  const locked: VolumeMap = options.locked ?? new Map();
  let postings: Posting[];
  let metadata = input.metadata ?? {};
  let accountMetadata: Record<string, Record<string, string>> = options.replay?.accountMetadata ?? {};
  if (input.script) {
    ({ postings, metadata, accountMetadata } = await scriptedWrite(trx, ledger, input.script, metadata, locked));
  } else {
    postings = input.postings ?? [];
    await lockVolumes(trx, ledger, postings.flatMap((p): Array<[string, string]> => [[p.source, p.asset], [p.destination, p.asset]]), locked);
  }
  if (postings.length === 0) throw new ApiError('NO_POSTINGS', 'the transaction has no postings');

  const { pre, post, changed } = applyPostings(locked, postings, !input.script && !options.force);
  const sources = [...new Set(postings.map((p) => p.source))];
  const destinations = [...new Set(postings.map((p) => p.destination))];
  await writeVolumes(trx, ledger, changed, [...new Set([...sources, ...destinations])].sort());
  await mergeAccountMetadata(trx, ledger, accountMetadata);

  const timestamp = input.timestamp ?? new Date();
  const view = logTransactionView({ postings, metadata, timestamp, reference: input.reference });
  const log = options.log ?? { type: 'NEW_TRANSACTION' };
  const logData = log.type === 'NEW_TRANSACTION' ? { transaction: view, accountMetadata } : { revertedTransaction: log.revertedTransaction, transaction: view };
  const inserted = await trx.raw(
    `WITH n AS (UPDATE ledgers SET next_txid = next_txid + 1, next_log_id = next_log_id + 1 WHERE name = ? RETURNING next_txid - 1 AS id, next_log_id - 1 AS log_id),
     l AS (INSERT INTO ledger_logs (ledger, id, type, date, data) SELECT ?, n.log_id, ?, ?, jsonb_set(?::jsonb, '{transaction,id}', to_jsonb(n.id)) FROM n)
     INSERT INTO ledger_transactions (ledger, id, timestamp, reference, postings, metadata, pre_commit_volumes, post_commit_volumes, sources, destinations, json_head)
     SELECT x.*, ${headJsonSql('x.ts', 'x.postings')}
       FROM (SELECT ?::text AS ledger, n.id, ?::timestamptz AS ts, ?::text AS reference, ?::json AS postings, ?::jsonb AS metadata, ?::json AS pre, ?::json AS post, ?::text[] AS sources, ?::text[] AS destinations FROM n) x
     RETURNING ${TRANSACTION_ROW_COLUMNS.join(', ')}`,
    [
      ledger,
      ledger,
      log.type,
      options.replay?.date ?? new Date(),
      stringifyJson(logData),
      ledger,
      timestamp,
      input.reference ?? null,
      stringifyJson(postings.map((p) => ({ source: p.source, destination: p.destination, amount: p.amount, asset: p.asset }))),
      stringifyJson(metadata),
      stringifyJson(pre),
      stringifyJson(post),
      sources,
      destinations,
    ],
  );
  const row = inserted.rows[0] as TransactionRow | undefined;
  if (!row) throw new ApiError('LEDGER_NOT_FOUND', `ledger "${ledger}" not found`);
  return { transaction: presentTransaction(row), accountMetadata };
}

/** Merges the account metadata a script set into its accounts, in address order (one statement, any number). */
export async function mergeAccountMetadata(trx: Knex.Transaction, ledger: string, accountMetadata: Record<string, Record<string, string>>): Promise<void> {
  const addresses = Object.keys(accountMetadata).sort();
  if (addresses.length === 0) return;
  await trx.raw(
    `INSERT INTO ledger_accounts (ledger, address, metadata) SELECT ?, a, m FROM unnest(?::text[], ?::jsonb[]) AS t(a, m)
     ON CONFLICT (ledger, address) DO UPDATE SET metadata = ledger_accounts.metadata || excluded.metadata`,
    [ledger, addresses, addresses.map((a) => stringifyJson(accountMetadata[a]))],
  );
}
