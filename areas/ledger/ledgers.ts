import { ApiError } from '../../lib/errors';
import { isUniqueViolation } from '../../db/errors';
import { keysetPage, type Page, type PageRequest } from '../../db/pagination';
import { assertLedgerName, assertMetadata } from './rules';
import type { Executor } from './types';
import { stringifyJson } from '../../lib/json';

export interface Ledger {
  id: string;
  name: string;
  addedAt: Date;
  bucket: string;
  metadata: Record<string, string>;
}

interface LedgerRow {
  id: string;
  name: string;
  bucket: string;
  metadata: Record<string, string>;
  added_at: Date;
}

const present = (row: LedgerRow): Ledger => ({ id: String(row.id), name: row.name, addedAt: row.added_at, bucket: row.bucket, metadata: row.metadata ?? {} });

// Ledgers are never deleted, so a name seen once stays valid: writes skip the existence query after the first hit.
const knownLedgers = new Set<string>();

/** @throws ApiError LEDGER_NOT_FOUND */
export async function assertLedgerExists(db: Executor, name: string): Promise<void> {
  if (knownLedgers.has(name)) return;
  const row = await db('ledgers').where({ name }).first('name');
  if (!row) throw new ApiError('LEDGER_NOT_FOUND', `ledger "${name}" not found`);
  knownLedgers.add(name);
}

/** @throws ApiError VALIDATION (name), LEDGER_ALREADY_EXISTS */
export async function createLedger(db: Executor, name: string, input: { bucket?: string; metadata?: Record<string, string> } = {}): Promise<Ledger> {
  assertLedgerName(name);
  if (input.metadata !== undefined) assertMetadata(input.metadata, 'metadata');
  const rows = await db.raw(
    `INSERT INTO ledgers (name, bucket, metadata) VALUES (?, ?, ?::jsonb) ON CONFLICT (name) DO NOTHING RETURNING *`,
    [name, input.bucket ?? '_default', stringifyJson(input.metadata ?? {})],
  );
  if (rows.rows.length === 0) throw new ApiError('LEDGER_ALREADY_EXISTS', `ledger "${name}" already exists`);
  return present(rows.rows[0]);
}

/** Creates the ledger when missing (wallets, orchestration); concurrent callers all succeed. @throws ApiError VALIDATION */
export async function ensureLedger(db: Executor, name: string): Promise<void> {
  if (knownLedgers.has(name)) return;
  assertLedgerName(name);
  try {
    await db.raw(`INSERT INTO ledgers (name) VALUES (?) ON CONFLICT (name) DO NOTHING`, [name]);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  knownLedgers.add(name);
}

/** @throws ApiError LEDGER_NOT_FOUND */
export async function getLedger(db: Executor, name: string): Promise<Ledger> {
  const row = await db<LedgerRow>('ledgers').where({ name }).first();
  if (!row) throw new ApiError('LEDGER_NOT_FOUND', `ledger "${name}" not found`);
  return present(row);
}

/** Ledgers in creation order (Formance's default: id asc). */
export async function listLedgers(db: Executor, page: PageRequest): Promise<Page<Ledger>> {
  const result = await keysetPage<LedgerRow>(db('ledgers').select('*'), ['id'], 'asc', page);
  return { ...result, items: result.items.map(present) };
}

/** Merges keys into the ledger's metadata (no event: Formance's SAVED_METADATA targets accounts and transactions). @throws ApiError LEDGER_NOT_FOUND, VALIDATION */
export async function updateLedgerMetadata(db: Executor, name: string, metadata: Record<string, string>): Promise<void> {
  assertMetadata(metadata, 'metadata');
  const updated = await db('ledgers').where({ name }).update({ metadata: db.raw('metadata || ?::jsonb', [stringifyJson(metadata)]) });
  if (updated === 0) throw new ApiError('LEDGER_NOT_FOUND', `ledger "${name}" not found`);
}

/** Removes one key of a ledger's metadata; an absent key is not an error (Formance). @throws ApiError LEDGER_NOT_FOUND */
export async function deleteLedgerMetadata(db: Executor, name: string, key: string): Promise<void> {
  const updated = await db('ledgers').where({ name }).update({ metadata: db.raw('metadata - ?::text', [key]) });
  if (updated === 0) throw new ApiError('LEDGER_NOT_FOUND', `ledger "${name}" not found`);
}
