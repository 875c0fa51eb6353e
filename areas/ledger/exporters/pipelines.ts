import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { isUniqueViolation } from '../../../db/errors';
import { keysetPage, type Page, type PageRequest } from '../../../db/pagination';
import { notFound, validationError } from '../../../lib/errors';
import type { TemporalDeps } from '../../../lib/temporal';
import { cancelPipelineWorkflow, startPipelineWorkflow, wakePipelineWorkflow } from '../engine';
import { getExporterRow } from './exporters';
import { assertLedgerExists } from '../ledgers';
import type { Executor } from '../types';

/** Formance's V2Pipeline; `lastLogID` is absent until a first batch is delivered (and again after a reset). */
export interface Pipeline {
  id: string;
  ledger: string;
  exporterID: string;
  enabled: boolean;
  lastLogID?: bigint;
  createdAt: Date;
}

export interface PipelineRow {
  id: string;
  ledger: string;
  exporter_id: string;
  enabled: boolean;
  last_log_id: string;
  created_at: Date;
}

interface Deps {
  db: Executor;
  temporal: TemporalDeps;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function presentPipeline(row: PipelineRow): Pipeline {
  const last = BigInt(row.last_log_id);
  return {
    id: row.id,
    ledger: row.ledger,
    exporterID: row.exporter_id,
    enabled: row.enabled,
    ...(last >= 0n ? { lastLogID: last } : {}),
    createdAt: row.created_at,
  };
}

async function pipelineRow(db: Executor, ledger: string, id: string): Promise<PipelineRow> {
  await assertLedgerExists(db, ledger);
  const row = UUID.test(id) ? ((await db('ledger_pipelines').where({ id, ledger }).first()) as PipelineRow | undefined) : undefined;
  if (!row) throw notFound(`pipeline "${id}" not found in ledger "${ledger}"`);
  return row;
}

/**
 * Creates a pipeline and starts it, as Formance: it exports every log of the ledger from the first one.
 * @throws ApiError LEDGER_NOT_FOUND; VALIDATION for an unknown exporter or one the ledger already has a pipeline to
 */
export async function createPipeline(deps: Deps, ledger: string, exporterID: string): Promise<Pipeline> {
  await assertLedgerExists(deps.db, ledger);
  if (!(await getExporterRow(deps.db, exporterID))) throw validationError(`exporter "${exporterID}" not found`);
  let row: PipelineRow;
  try {
    [row] = (await deps.db('ledger_pipelines').insert({ id: randomUUID(), ledger, exporter_id: exporterID }).returning('*')) as PipelineRow[];
  } catch (error) {
    if (isUniqueViolation(error)) throw validationError(`ledger "${ledger}" already has a pipeline to exporter "${exporterID}"`);
    throw error;
  }
  try {
    await startPipelineWorkflow(deps.temporal, ledger, row.id);
  } catch (error) {
    // Without its workflow the pipeline would say enabled and never run: the creation fails as a whole.
    await deps.db('ledger_pipelines').where({ id: row.id }).delete();
    throw error;
  }
  return presentPipeline(row);
}

/** Oldest first. @throws ApiError LEDGER_NOT_FOUND */
export async function listPipelines(db: Executor, ledger: string, page: PageRequest): Promise<Page<PipelineRow>> {
  await assertLedgerExists(db, ledger);
  return keysetPage<PipelineRow>(db('ledger_pipelines').where({ ledger }).select('*') as Knex.QueryBuilder, ['created_at', 'id'], 'asc', page);
}

/** @throws ApiError LEDGER_NOT_FOUND, NOT_FOUND */
export async function getPipeline(db: Executor, ledger: string, id: string): Promise<Pipeline> {
  return presentPipeline(await pipelineRow(db, ledger, id));
}

/** Resumes a stopped pipeline from its position. @throws ApiError LEDGER_NOT_FOUND, NOT_FOUND, VALIDATION (already started) */
export async function startPipeline(deps: Deps, ledger: string, id: string): Promise<void> {
  await pipelineRow(deps.db, ledger, id);
  const updated = await deps.db('ledger_pipelines').where({ id, enabled: false }).update({ enabled: true });
  if (updated === 0) throw validationError(`pipeline "${id}" is already started`);
  try {
    await startPipelineWorkflow(deps.temporal, ledger, id);
  } catch (error) {
    await deps.db('ledger_pipelines').where({ id }).update({ enabled: false });
    throw error;
  }
}

/** Stops a pipeline; its position is kept. @throws ApiError LEDGER_NOT_FOUND, NOT_FOUND, VALIDATION (not started) */
export async function stopPipeline(deps: Deps, ledger: string, id: string): Promise<void> {
  await pipelineRow(deps.db, ledger, id);
  const updated = await deps.db('ledger_pipelines').where({ id, enabled: true }).update({ enabled: false });
  if (updated === 0) throw validationError(`pipeline "${id}" is not started`);
  // The row says stopped first: a batch that ends after this finds it so and the workflow ends, cancel or not.
  await cancelPipelineWorkflow(deps.temporal, ledger, id);
}

/**
 * Sets the position back before the first log, so the next batches export the ledger again from log 0. A batch in
 * flight cannot undo it: a batch advances the position only from the value it read. @throws LEDGER_NOT_FOUND, NOT_FOUND
 */
export async function resetPipeline(deps: Deps, ledger: string, id: string): Promise<void> {
  const row = await pipelineRow(deps.db, ledger, id);
  await deps.db('ledger_pipelines').where({ id }).update({ last_log_id: -1 });
  if (row.enabled) await wakePipelineWorkflow(deps.temporal, ledger, id);
}

/** Deletes a pipeline and ends its workflow; what it exported stays in the target. @throws LEDGER_NOT_FOUND, NOT_FOUND */
export async function deletePipeline(deps: Deps, ledger: string, id: string): Promise<void> {
  await pipelineRow(deps.db, ledger, id);
  // The DELETE decides: of concurrent deletes one answers 204, the others NOT_FOUND.
  const deleted = await deps.db('ledger_pipelines').where({ id, ledger }).delete();
  if (deleted === 0) throw notFound(`pipeline "${id}" not found in ledger "${ledger}"`);
  await cancelPipelineWorkflow(deps.temporal, ledger, id);
}
