import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { keysetPage, type Page, type PageRequest } from '../../../db/pagination';
import { notFound, validationError } from '../../../lib/errors';
import { checkExporterConfig, maskExporterConfig, type ExporterConfig } from './exporter-config';
import type { Executor } from '../types';

/** Formance's V2Exporter. */
export interface Exporter {
  id: string;
  driver: string;
  config: ExporterConfig;
  createdAt: Date;
}

export interface ExporterRow {
  id: string;
  driver: string;
  config: ExporterConfig;
  created_at: Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isExporterId = (id: string): boolean => UUID.test(id);

/** What the API shows: the stored configuration with its secrets masked. */
export const presentExporter = (row: ExporterRow): Exporter => ({
  id: row.id,
  driver: row.driver,
  config: maskExporterConfig(row.driver, row.config),
  createdAt: row.created_at,
});

/** The stored row, secrets included: for the worker's drivers only. @returns undefined when there is none */
export async function getExporterRow(db: Executor, id: string): Promise<ExporterRow | undefined> {
  if (!isExporterId(id)) return undefined;
  return (await db('ledger_exporters').where({ id }).first()) as ExporterRow | undefined;
}

/** @throws ApiError VALIDATION (driver or config) */
export async function createExporter(db: Executor, input: { driver: string; config: Record<string, unknown> }): Promise<Exporter> {
  const checked = checkExporterConfig(input.driver, input.config);
  const [row] = (await db('ledger_exporters')
    .insert({ id: randomUUID(), driver: checked.driver, config: checked.config })
    .returning('*')) as ExporterRow[];
  return presentExporter(row);
}

/** @throws ApiError NOT_FOUND */
export async function getExporter(db: Executor, id: string): Promise<Exporter> {
  const row = await getExporterRow(db, id);
  if (!row) throw notFound(`exporter "${id}" not found`);
  return presentExporter(row);
}

/** Oldest first, by id within a creation instant. */
export async function listExporters(db: Executor, page: PageRequest): Promise<Page<ExporterRow>> {
  return keysetPage<ExporterRow>(db('ledger_exporters').select('*') as Knex.QueryBuilder, ['created_at', 'id'], 'asc', page);
}

/**
 * Replaces the driver and configuration (PUT). Running pipelines pick the new configuration up at their next batch:
 * the worker reads the exporter at every batch. @throws ApiError NOT_FOUND, VALIDATION
 */
export async function updateExporter(db: Executor, id: string, input: { driver: string; config: Record<string, unknown> }): Promise<void> {
  const checked = checkExporterConfig(input.driver, input.config);
  const updated = isExporterId(id) ? await db('ledger_exporters').where({ id }).update({ driver: checked.driver, config: checked.config }) : 0;
  if (updated === 0) throw notFound(`exporter "${id}" not found`);
}

/**
 * The DELETE itself decides whether the exporter was there: of concurrent deletes one answers 204, the others NOT_FOUND.
 * @throws ApiError NOT_FOUND, VALIDATION when a pipeline still uses it (as Formance)
 */
export async function deleteExporter(db: Executor, id: string): Promise<void> {
  if (!(await getExporterRow(db, id))) throw notFound(`exporter "${id}" not found`);
  const used = await db('ledger_pipelines').where({ exporter_id: id }).first('id', 'ledger');
  if (used) throw validationError(`exporter "${id}" is used by pipeline "${used.id}" of ledger "${used.ledger}": delete the pipeline first`);
  const deleted = await db('ledger_exporters').where({ id }).delete();
  if (deleted === 0) throw notFound(`exporter "${id}" not found`);
}
