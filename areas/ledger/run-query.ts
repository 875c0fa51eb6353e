import { notFound } from '../../lib/errors';
import { assertLedgerExists } from './ledgers';
import type { Executor } from './types';

/** Formance's V2QueryTemplate, as a ledger schema version stores it under `queries`. */
export interface QueryTemplate {
  resource?: 'accounts' | 'transactions' | 'logs' | 'volumes';
  description?: string;
  params?: Record<string, unknown>;
  body?: Record<string, unknown>;
  vars?: Record<string, { type: string; default?: unknown }>;
}

/**
 * The query template `id` of the ledger's schema version `schemaVersion`. Templates come with ledger schemas
 * (Formance's insertSchema), which this platform does not store yet: until it does, no template exists.
 */
export async function findQueryTemplate(db: Executor, ledger: string, schemaVersion: string, id: string): Promise<QueryTemplate | undefined> {
  void db;
  void ledger;
  void schemaVersion;
  void id;
  return undefined;
}

/**
 * Formance's runQuery: runs a stored query template. Only the lookup is served so far, so every call answers 404
 * naming the template and schema version (docs/ledger.md, "Queries"). @throws ApiError LEDGER_NOT_FOUND, NOT_FOUND
 */
export async function runQuery(db: Executor, ledger: string, request: { id: string; schemaVersion: string }): Promise<never> {
  await assertLedgerExists(db, ledger);
  const template = await findQueryTemplate(db, ledger, request.schemaVersion, request.id);
  if (!template) throw notFound(`query template "${request.id}" not found in schema version "${request.schemaVersion}" of ledger "${ledger}"`);
  throw notFound(`query template "${request.id}": running templates is not supported yet`);
}
