import { ApiError, validationError } from '../../../lib/errors';
import { stringifyJson } from '../../../lib/json';
import { keysetPage, type Page, type PageRequest } from '../../../db/pagination';
import { emitEvents } from '../../../db/outbox';
import { compileNumscript, NumscriptError } from '../../../numscript';
import { parseChart, type ChartNode } from './chart';
import { inWriteTransaction } from '../executor';
import { assertLedgerExists, assertLedgerWritable } from '../ledgers';
import { appendLog } from '../logs/log';
import type { Executor } from '../types';

/** Formance's V2Schema: a version of a ledger's chart of accounts, transaction templates and query templates. */
export interface LedgerSchema {
  version: string;
  createdAt: Date;
  chart: Record<string, unknown>;
  transactions?: Record<string, { script: string; description?: string; runtime?: string }>;
  queries?: Record<string, unknown>;
}

/** A schema with its chart parsed, as writes naming its version check against it. */
export interface ParsedSchema extends LedgerSchema {
  tree: ChartNode;
}

interface SchemaRow {
  seq: string;
  version: string;
  data: Omit<LedgerSchema, 'version' | 'createdAt'>;
  created_at: Date;
}

const VERSION = /^[a-zA-Z0-9_.+-]{1,64}$/;
const RUNTIMES = ['experimental-interpreter', 'machine'];
const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

const present = (row: SchemaRow): LedgerSchema => ({ version: row.version, createdAt: row.created_at, ...row.data });

function checkTemplates(transactions: unknown): LedgerSchema['transactions'] {
  if (transactions === undefined) return undefined;
  if (!isRecord(transactions)) throw validationError('transactions: must be an object of templates');
  for (const [name, template] of Object.entries(transactions)) {
    const where = `transactions.${name}`;
    if (!isRecord(template)) throw validationError(`${where}: must be {script, description?, runtime?}`);
    const unknown = Object.keys(template).find((k) => !['script', 'description', 'runtime'].includes(k));
    if (unknown) throw validationError(`${where}.${unknown}: unknown field`);
    if (typeof template.script !== 'string' || template.script.trim() === '') throw validationError(`${where}.script: must be a non-empty Numscript`);
    if (template.description !== undefined && typeof template.description !== 'string')
      throw validationError(`${where}.description: must be a string`);
    if (template.runtime !== undefined && !RUNTIMES.includes(template.runtime as string))
      throw validationError(`${where}.runtime: must be one of ${RUNTIMES.join(', ')}`);
    try {
      compileNumscript(template.script);
    } catch (error) {
      if (error instanceof NumscriptError) throw new ApiError('COMPILATION_FAILED', `${where}.script: ${error.message}`);
      throw error;
    }
  }
  return transactions as LedgerSchema['transactions'];
}

/**
 * Inserts a schema version (Formance's InsertSchema): the chart is parsed and every template compiled first, then the
 * schema, its INSERTED_SCHEMA log and event are written in one transaction. A version is immutable: inserting an
 * existing one is SCHEMA_ALREADY_EXISTS, whatever its content.
 * @throws ApiError LEDGER_NOT_FOUND, VALIDATION, COMPILATION_FAILED, SCHEMA_ALREADY_EXISTS
 */
export async function insertSchema(db: Executor, ledger: string, version: string, data: unknown): Promise<LedgerSchema> {
  const stored = checkSchemaData(version, data);
  await assertLedgerWritable(db, ledger);
  return inWriteTransaction(db, async (trx) => {
    const schema = await writeSchema(trx, ledger, version, stored);
    await emitEvents(trx, [{ app: 'ledger', type: 'INSERTED_SCHEMA', payload: { ledger, schema } }]);
    return schema;
  });
}

/** A version and its data as stored: the chart parsed, the templates compiled. @throws ApiError VALIDATION, COMPILATION_FAILED */
export function checkSchemaData(version: string, data: unknown): Omit<LedgerSchema, 'version' | 'createdAt'> {
  if (typeof version !== 'string' || !VERSION.test(version)) throw validationError(`version: must match ${VERSION.source}`);
  if (!isRecord(data)) throw validationError('body: must be an object');
  const unknown = Object.keys(data).find((k) => !['chart', 'transactions', 'queries'].includes(k));
  if (unknown) throw validationError(`body.${unknown}: unknown field`);
  if (data.chart === undefined) throw validationError('chart: required (the chart of accounts)');
  parseChart(data.chart);
  const transactions = checkTemplates(data.transactions);
  if (data.queries !== undefined && !isRecord(data.queries)) throw validationError('queries: must be an object');
  return {
    chart: data.chart as Record<string, unknown>,
    ...(transactions ? { transactions } : {}),
    ...(data.queries ? { queries: data.queries as Record<string, unknown> } : {}),
  };
}

/** The row and its log, in the caller's transaction (also a log import's replay, with the original date). */
export async function writeSchema(
  trx: Executor,
  ledger: string,
  version: string,
  stored: Omit<LedgerSchema, 'version' | 'createdAt'>,
  logDate?: Date,
): Promise<LedgerSchema> {
  const createdAt = logDate ?? new Date();
  const rows = await trx.raw(
    `INSERT INTO ledger_schemas (ledger, version, data, created_at) VALUES (?, ?, ?::jsonb, ?) ON CONFLICT (ledger, version) DO NOTHING RETURNING *`,
    [ledger, version, stringifyJson(stored), createdAt],
  );
  if (rows.rows.length === 0)
    throw new ApiError('SCHEMA_ALREADY_EXISTS', `schema version "${version}" already exists in ledger "${ledger}": a version is immutable`, {
      status: 400,
    });
  const schema = present(rows.rows[0] as SchemaRow);
  const view = { version: schema.version, createdAt: schema.createdAt, ...stored };
  await appendLog(trx, ledger, 'INSERTED_SCHEMA', { schema: view }, createdAt);
  return schema;
}

/** @throws ApiError LEDGER_NOT_FOUND, NOT_FOUND */
export async function getSchema(db: Executor, ledger: string, version: string): Promise<LedgerSchema> {
  const row = (await db('ledger_schemas').where({ ledger, version }).first()) as SchemaRow | undefined;
  if (row) return present(row);
  await assertLedgerExists(db, ledger);
  throw new ApiError('NOT_FOUND', `schema version "${version}" not found in ledger "${ledger}"`);
}

/** Schemas by insertion order, newest first unless `order` is asc (Formance sorts by created_at). @throws ApiError LEDGER_NOT_FOUND */
export async function listSchemas(
  db: Executor,
  ledger: string,
  order: 'asc' | 'desc',
  page: PageRequest,
): Promise<Page<{ seq: string; schema: LedgerSchema }>> {
  await assertLedgerExists(db, ledger);
  const result = await keysetPage<SchemaRow>(db('ledger_schemas').where({ ledger }).select('*'), ['seq'], order, page);
  return { ...result, items: result.items.map((row) => ({ seq: String(row.seq), schema: present(row) })) };
}

// A version never changes once inserted, so a parsed schema is cached for the life of the process.
const parsed = new Map<string, ParsedSchema>();

/** The schema a write names, parsed. @throws ApiError NOT_FOUND (Formance answers an unknown version so) */
export async function findSchema(db: Executor, ledger: string, version: string): Promise<ParsedSchema> {
  const key = `${ledger}\u0000${version}`;
  const cached = parsed.get(key);
  if (cached) return cached;
  const schema = await getSchema(db, ledger, version);
  const result = { ...schema, tree: parseChart(schema.chart) };
  parsed.set(key, result);
  return result;
}
