import { notFound } from '../../../lib/errors';
import { countRows, keysetPage, type Page, type PageRequest } from '../../../db/pagination';
import { assertLedgerExists } from '../ledgers';
import { addressesField, compileLedgerQuery, metadataField, type FieldResolver, type QueryField } from './ledger-query';
import { addressPatternRegex } from '../rules/rules';
import type { Executor, LedgerTransaction, Posting, VolumesByAccount } from '../types';
import { stringifyJson } from '../../../lib/json';
import { readTransactionJson, readTransactionRow } from './transaction-reads';
import { TRANSACTION_ROW_COLUMNS } from './transaction-json';
import type { Knex } from 'knex';

export interface TransactionRow {
  ledger: string;
  id: string;
  timestamp: Date;
  reference: string | null;
  postings: Array<{ source: string; destination: string; amount: number | bigint; asset: string }>;
  metadata: Record<string, string>;
  pre_commit_volumes: Record<string, Record<string, { input: number | bigint; output: number | bigint }>>;
  post_commit_volumes: Record<string, Record<string, { input: number | bigint; output: number | bigint }>>;
  inserted_at: Date;
  reverted_at: Date | null;
}

// jsonb comes back with safe integers as numbers and larger ones as BigInt: the contract is bigint everywhere.
function volumesOf(stored: TransactionRow['post_commit_volumes']): VolumesByAccount {
  const out: VolumesByAccount = {};
  for (const [address, assets] of Object.entries(stored)) {
    out[address] = {};
    for (const [asset, v] of Object.entries(assets)) {
      const input = BigInt(v.input);
      const output = BigInt(v.output);
      out[address][asset] = { input, output, balance: input - output };
    }
  }
  return out;
}

export function presentTransaction(row: TransactionRow): LedgerTransaction {
  return {
    id: BigInt(row.id),
    ledger: row.ledger,
    postings: row.postings.map((p): Posting => ({ source: p.source, destination: p.destination, amount: BigInt(p.amount), asset: p.asset })),
    ...(row.reference !== null ? { reference: row.reference } : {}),
    // A copy: reads of one txid that shared a statement share its row.
    metadata: { ...row.metadata },
    timestamp: row.timestamp,
    insertedAt: row.inserted_at,
    reverted: row.reverted_at !== null,
    ...(row.reverted_at !== null ? { revertedAt: row.reverted_at } : {}),
    preCommitVolumes: volumesOf(row.pre_commit_volumes),
    postCommitVolumes: volumesOf(row.post_commit_volumes),
  };
}

/** @throws ApiError LEDGER_NOT_FOUND, NOT_FOUND */
export async function getTransaction(db: Executor, ledger: string, id: bigint): Promise<LedgerTransaction> {
  // Read by txid is the hottest read (op 11): outside a transaction it shares a statement with concurrent reads
  // (transaction-reads.ts); the ledger is looked up only to name a miss.
  const row = (db as Knex.Transaction).isTransaction
    ? ((await db('ledger_transactions')
        .where({ ledger, id: id.toString() })
        .first(...TRANSACTION_ROW_COLUMNS)) as TransactionRow | undefined)
    : await readTransactionRow(db as Knex, ledger, id);
  return row ? presentTransaction(row) : transactionMissing(db, ledger, id);
}

/** Names a miss: the ledger is looked up only then. @throws ApiError LEDGER_NOT_FOUND, NOT_FOUND */
async function transactionMissing(db: Executor, ledger: string, id: bigint): Promise<never> {
  await assertLedgerExists(db, ledger);
  throw notFound(`transaction ${id} not found in ledger "${ledger}"`);
}

/**
 * getTransaction's answer as the JSON text of its v1 or v2 view, written by PostgreSQL (transaction-json.ts), for
 * routes that only pass it on. @throws ApiError LEDGER_NOT_FOUND, NOT_FOUND
 */
export function getTransactionJson(db: Knex, ledger: string, id: bigint, view: 'v1' | 'v2'): Promise<string> {
  return readTransactionJson(db, ledger, id, view).then((json) => json ?? transactionMissing(db, ledger, id));
}

export interface TransactionFilters {
  account?: string;
  source?: string;
  destination?: string;
  reference?: string;
  /** Inclusive lower bound on the transaction timestamp. */
  startTime?: Date;
  /** Exclusive upper bound. */
  endTime?: Date;
  metadata?: Record<string, string>;
  /** Only txids below this one (v1's `after`: the list is newest first, so "after" a txid is below it). */
  before?: bigint;
  /** Formance's JSON filter over TRANSACTION_FIELDS (areas/ledger/reads/ledger-query.ts). */
  query?: string;
}

const TRANSACTION_FIELDS = 'id, reference, timestamp, inserted_at, reverted, source, destination, account, metadata[<key>]';
const transactionField: FieldResolver = (name) => {
  const t = 'ledger_transactions';
  const fields: Record<string, QueryField> = {
    id: { kind: 'number', sql: `${t}.id` },
    reference: { kind: 'string', sql: `${t}.reference` },
    timestamp: { kind: 'date', sql: `${t}.timestamp` },
    inserted_at: { kind: 'date', sql: `${t}.inserted_at` },
    insertedAt: { kind: 'date', sql: `${t}.inserted_at` },
    reverted: { kind: 'boolean', sql: `(${t}.reverted_at IS NOT NULL)` },
    source: addressesField(`${t}.sources`),
    destination: addressesField(`${t}.destinations`),
    account: addressesField(`(${t}.sources || ${t}.destinations)`),
  };
  return fields[name] ?? metadataField(name, `${t}.metadata`);
};

/** `column` contains the address, or an address matching the pattern (see addressPatternRegex). */
function whereAccounts(query: import('knex').Knex.QueryBuilder, columns: string[], address: string): void {
  const regex = addressPatternRegex(address);
  query.where((q) => {
    for (const column of columns) {
      if (regex) q.orWhereRaw(`EXISTS (SELECT 1 FROM unnest(??) a WHERE a ~ ?)`, [column, regex]);
      else q.orWhereRaw(`?? @> ARRAY[?]::text[]`, [column, address]);
    }
  });
}

/** Newest first (txid desc), keyset-paginated so concurrent writes never shift a page. @throws ApiError LEDGER_NOT_FOUND */
export async function listTransactions(
  db: Executor,
  ledger: string,
  filters: TransactionFilters,
  page: PageRequest,
): Promise<Page<LedgerTransaction>> {
  await assertLedgerExists(db, ledger);
  const result = await keysetPage<TransactionRow>(transactionsQuery(db, ledger, filters).select(...TRANSACTION_ROW_COLUMNS), ['id'], 'desc', page);
  return { ...result, items: result.items.map(presentTransaction) };
}

/** How many transactions match the filters of listTransactions (HEAD transactions, `Count` header). @throws ApiError LEDGER_NOT_FOUND */
export async function countTransactions(db: Executor, ledger: string, filters: TransactionFilters): Promise<number> {
  await assertLedgerExists(db, ledger);
  return countRows(transactionsQuery(db, ledger, filters));
}

function transactionsQuery(db: Executor, ledger: string, filters: TransactionFilters) {
  const query = db('ledger_transactions').where({ ledger });
  if (filters.account) whereAccounts(query, ['sources', 'destinations'], filters.account);
  if (filters.source) whereAccounts(query, ['sources'], filters.source);
  if (filters.destination) whereAccounts(query, ['destinations'], filters.destination);
  if (filters.reference) query.where({ reference: filters.reference });
  if (filters.startTime) query.where('timestamp', '>=', filters.startTime);
  if (filters.endTime) query.where('timestamp', '<', filters.endTime);
  if (filters.metadata && Object.keys(filters.metadata).length > 0) query.whereRaw('metadata @> ?::jsonb', [stringifyJson(filters.metadata)]);
  if (filters.before !== undefined) query.where('id', '<', filters.before.toString());
  const condition = compileLedgerQuery(filters.query, transactionField, TRANSACTION_FIELDS);
  if (condition) query.whereRaw(condition.sql, condition.bindings as import('knex').Knex.RawBinding[]);
  return query;
}
