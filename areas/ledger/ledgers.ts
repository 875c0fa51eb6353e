import { ApiError, validationError } from '../../lib/errors';
import { isUniqueViolation } from '../../db/errors';
import { keysetPage, type Page, type PageRequest } from '../../db/pagination';
import { assertFeatures, effectiveFeatures, numscriptFlags } from './features';
import { assertLedgerName, assertMetadata } from './rules/rules';
import type { Executor } from './types';
import { stringifyJson } from '../../lib/json';

export interface Ledger {
  id: string;
  name: string;
  addedAt: Date;
  bucket: string;
  metadata: Record<string, string>;
  /** The effective features: the creator's choice where one exists (HASH_LOGS), what this platform does otherwise. */
  features: Record<string, string>;
  /** What the creator asked for (a subset of the effective set: anything else was refused). */
  requestedFeatures: Record<string, string>;
  /** Set while the ledger's bucket is deleted. */
  deletedAt?: Date;
}

interface LedgerRow {
  id: string;
  name: string;
  bucket: string;
  metadata: Record<string, string>;
  features: Record<string, string> | null;
  added_at: Date;
  deleted_at: Date | null;
}

const present = (row: LedgerRow): Ledger => ({
  id: String(row.id),
  name: row.name,
  addedAt: row.added_at,
  bucket: row.bucket,
  metadata: row.metadata ?? {},
  features: effectiveFeatures(row.features),
  requestedFeatures: row.features ?? {},
  ...(row.deleted_at ? { deletedAt: row.deleted_at } : {}),
});

// Ledgers are never deleted, so a name seen once stays valid: writes skip the existence query after the first hit.
const knownLedgers = new Set<string>();

/** @throws ApiError LEDGER_NOT_FOUND */
export async function assertLedgerExists(db: Executor, name: string): Promise<void> {
  if (knownLedgers.has(name)) return;
  const row = await db('ledgers').where({ name }).first('name');
  if (!row) throw new ApiError('LEDGER_NOT_FOUND', `ledger "${name}" not found`);
  knownLedgers.add(name);
}

/** @throws ApiError VALIDATION (name, features), LEDGER_ALREADY_EXISTS */
export async function createLedger(
  db: Executor,
  name: string,
  input: { bucket?: string; metadata?: Record<string, string>; features?: Record<string, string> } = {},
): Promise<Ledger> {
  assertLedgerName(name);
  if (input.bucket === PLATFORM_BUCKET) throw validationError(`bucket "${PLATFORM_BUCKET}" is reserved for the platform's own ledgers`);
  if (input.metadata !== undefined) assertMetadata(input.metadata, 'metadata');
  if (input.features !== undefined) assertFeatures(input.features);
  const rows = await db.raw(
    `INSERT INTO ledgers (name, bucket, metadata, features) VALUES (?, ?, ?::jsonb, ?::jsonb) ON CONFLICT (name) DO NOTHING RETURNING *`,
    [name, input.bucket ?? '_default', stringifyJson(input.metadata ?? {}), stringifyJson(input.features ?? {})],
  );
  if (rows.rows.length === 0) throw new ApiError('LEDGER_ALREADY_EXISTS', `ledger "${name}" already exists`);
  return present(rows.rows[0]);
}

/**
 * The bucket of the ledgers the platform writes on its own behalf (wallets, orchestration's internal ledger). A bucket
 * delete would stop every wallet, so this one cannot be deleted, and clients cannot create ledgers in it.
 */
export const PLATFORM_BUCKET = '_platform';

/**
 * Creates one of the platform's own ledgers when missing, in PLATFORM_BUCKET; concurrent callers all succeed.
 * @throws ApiError VALIDATION
 */
export async function ensureLedger(db: Executor, name: string): Promise<void> {
  if (knownLedgers.has(name)) return;
  assertLedgerName(name);
  try {
    await db.raw(`INSERT INTO ledgers (name, bucket) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`, [name, PLATFORM_BUCKET]);
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

/** Ledgers in creation order (Formance's default: id asc); those of a deleted bucket only with `includeDeleted`. */
export async function listLedgers(db: Executor, page: PageRequest & { includeDeleted?: boolean }): Promise<Page<Ledger>> {
  const query = db('ledgers').select('*');
  if (!page.includeDeleted) query.whereNull('deleted_at');
  const result = await keysetPage<LedgerRow>(query, ['id'], 'asc', page);
  return { ...result, items: result.items.map(present) };
}

/** Merges keys into the ledger's metadata (no event: Formance's SAVED_METADATA targets accounts and transactions). @throws ApiError LEDGER_NOT_FOUND, VALIDATION */
export async function updateLedgerMetadata(db: Executor, name: string, metadata: Record<string, string>): Promise<void> {
  assertMetadata(metadata, 'metadata');
  await assertLedgerWritable(db, name);
  const updated = await db('ledgers')
    .where({ name })
    .update({ metadata: db.raw('metadata || ?::jsonb', [stringifyJson(metadata)]) });
  if (updated === 0) throw new ApiError('LEDGER_NOT_FOUND', `ledger "${name}" not found`);
}

/** Removes one key of a ledger's metadata; an absent key is not an error (Formance). @throws ApiError LEDGER_NOT_FOUND */
export async function deleteLedgerMetadata(db: Executor, name: string, key: string): Promise<void> {
  await assertLedgerWritable(db, name);
  const updated = await db('ledgers')
    .where({ name })
    .update({ metadata: db.raw('metadata - ?::text', [key]) });
  if (updated === 0) throw new ApiError('LEDGER_NOT_FOUND', `ledger "${name}" not found`);
}

/**
 * Whether a ledger's bucket is deleted, as this process last read it. A deletion is seen at once by the process that
 * made it and within WRITABLE_TTL_MS by the others: writes check it before they start (the group commit cannot), and a
 * per-write read of the ledger row would cost every transaction a statement for an operation that is rare.
 */
const WRITABLE_TTL_MS = 1000;
const deletedState = new Map<string, { deletedAt: Date | null; bucket: string; readAt: number }>();

/** Refuses a write to a ledger whose bucket is deleted. @throws ApiError LEDGER_NOT_FOUND, VALIDATION */
export async function assertLedgerWritable(db: Executor, name: string): Promise<void> {
  let state = deletedState.get(name);
  if (!state || Date.now() - state.readAt > WRITABLE_TTL_MS) {
    const row = await db('ledgers').where({ name }).first('deleted_at', 'bucket');
    if (!row) throw new ApiError('LEDGER_NOT_FOUND', `ledger "${name}" not found`);
    state = { deletedAt: row.deleted_at, bucket: row.bucket, readAt: Date.now() };
    deletedState.set(name, state);
  }
  if (state.deletedAt) {
    // No object `details`: Formance's error model has a string there, and its SDK refuses the answer otherwise.
    throw new ApiError('VALIDATION', `ledger "${name}" is deleted (bucket "${state.bucket}" was deleted): restore the bucket to write to it`);
  }
}

async function setBucketDeleted(db: Executor, bucket: string, deleted: boolean): Promise<void> {
  if (bucket === PLATFORM_BUCKET)
    throw validationError(`bucket "${PLATFORM_BUCKET}" holds the platform's own ledgers (wallets, orchestration) and cannot be deleted or restored`);
  const rows: Array<{ name: string }> = await db('ledgers')
    .where({ bucket })
    .update({ deleted_at: deleted ? db.raw('COALESCE(deleted_at, now())') : null })
    .returning('name');
  if (rows.length === 0) throw new ApiError('NOT_FOUND', `bucket "${bucket}" not found: no ledger is in it`);
  for (const row of rows) deletedState.delete(row.name);
}

/**
 * Marks every ledger of the bucket deleted (Formance's DeleteBucket): hidden from the list unless `includeDeleted`,
 * still readable, writes refused; nothing is erased, and a restore undoes it. Deleting a deleted bucket is a no-op.
 * @throws ApiError NOT_FOUND (no ledger in that bucket)
 */
export const deleteBucket = (db: Executor, bucket: string) => setBucketDeleted(db, bucket, true);

/** Undoes deleteBucket. @throws ApiError NOT_FOUND (no ledger in that bucket) */
export const restoreBucket = (db: Executor, bucket: string) => setBucketDeleted(db, bucket, false);

/**
 * The Numscript flags a ledger turns on (ledger features, features.ts). A ledger's features never change once it is
 * created, so each process reads them once per ledger: the script write path pays no statement for them.
 */
const scriptFlags = new Map<string, string[]>();

/** @throws ApiError LEDGER_NOT_FOUND */
export async function ledgerScriptFlags(db: Executor, name: string): Promise<string[]> {
  let flags = scriptFlags.get(name);
  if (!flags) {
    const row = await db('ledgers').where({ name }).first('features');
    if (!row) throw new ApiError('LEDGER_NOT_FOUND', `ledger "${name}" not found`);
    flags = numscriptFlags(row.features);
    scriptFlags.set(name, flags);
  }
  return flags;
}
