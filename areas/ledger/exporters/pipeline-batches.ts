import type { Db } from '../../../db/knex';
import { hashesLogs } from '../features';
import { batchSizeOf, type ExporterConfig } from './exporter-config';
import { getExporterRow } from './exporters';
import type { PipelineRow } from './pipelines';

/**
 * A log as exporters receive it: Formance's LogWithLedger, the V2Log with its ledger. `type` is passed through as
 * stored, whatever it is, so log types added later reach the targets unchanged.
 */
export interface ExportedLog {
  ledger: string;
  id: bigint;
  type: string;
  date: Date;
  data: unknown;
  hash: string;
}

/** The next batch of a pipeline: the logs after `afterLogId`, for the exporter as it is configured now. */
export interface PipelineBatch {
  ledger: string;
  pipelineId: string;
  /** The position the batch was read at; the batch advances it only from this value. */
  afterLogId: bigint;
  exporter: { id: string; driver: string; config: ExporterConfig };
  logs: ExportedLog[];
}

export type NextBatch = { stop: 'deleted' | 'stopped' } | { batch: PipelineBatch };

/**
 * Reads a pipeline's next batch: its logs after its position, in id order, up to the exporter's batch size. Only
 * hashed logs are exported (every committed log, hash "", for a ledger that does not hash its logs): they are a dense prefix of the ledger's log (docs/ledger.md, "The log"), so a batch never
 * skips a write still in flight, and every exported log carries its hash, which the target can verify.
 */
export async function nextPipelineBatch(db: Db, pipelineId: string): Promise<NextBatch> {
  const pipeline = (await db('ledger_pipelines').where({ id: pipelineId }).first()) as PipelineRow | undefined;
  if (!pipeline) return { stop: 'deleted' };
  if (!pipeline.enabled) return { stop: 'stopped' };
  const exporter = await getExporterRow(db, pipeline.exporter_id);
  if (!exporter) return { stop: 'deleted' };
  const after = BigInt(pipeline.last_log_id);
  const ledger = await db('ledgers').where({ name: pipeline.ledger }).first('features');
  // A ledger created with HASH_LOGS DISABLED has no hashes to wait for: its logs go out as they commit, without hash.
  const hashed = hashesLogs(ledger?.features ?? null);
  // A hashed ledger's logs are read with their hashes (ledger_log_hashes), the inner join keeping only hashed ones.
  const query = hashed
    ? db('ledger_logs').joinRaw('JOIN ledger_log_hashes USING (ledger, id)').select('id', 'type', 'date', 'data', 'hash')
    : db('ledger_logs').select('id', 'type', 'date', 'data', db.raw('NULL::bytea AS hash'));
  query.where({ ledger: pipeline.ledger }).where('id', '>', after.toString());
  const rows = (await query.orderBy('id').limit(batchSizeOf(exporter.config))) as Array<{
    id: string;
    type: string;
    date: Date;
    data: unknown;
    hash: Buffer | null;
  }>;
  const logs: ExportedLog[] = [];
  for (const row of rows) {
    if (BigInt(row.id) !== after + 1n + BigInt(logs.length)) break;
    logs.push({
      ledger: pipeline.ledger,
      id: BigInt(row.id),
      type: row.type,
      date: row.date,
      data: row.data,
      hash: row.hash ? row.hash.toString('base64') : '',
    });
  }
  return {
    batch: {
      ledger: pipeline.ledger,
      pipelineId,
      afterLogId: after,
      exporter: { id: exporter.id, driver: exporter.driver, config: exporter.config },
      logs,
    },
  };
}

/**
 * Records that the target holds the logs through `lastLogId`. Only from the position the batch was read at: a reset
 * (or another run's batch) in between wins, and this batch's logs are delivered again from the new position.
 * @returns whether the position moved
 */
export async function advancePipeline(db: Db, pipelineId: string, afterLogId: bigint, lastLogId: bigint): Promise<boolean> {
  const updated = await db('ledger_pipelines')
    .where({ id: pipelineId, last_log_id: afterLogId.toString() })
    .update({ last_log_id: lastLogId.toString() });
  return updated > 0;
}
