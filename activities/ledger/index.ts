import { Context } from '@temporalio/activity';
import { advancePipeline, nextPipelineBatch, type HttpExporterConfig, type PipelineBatch, type PostgresExporterConfig } from '../../areas/ledger';
import type { Db } from '../../db/knex';
import type { Logger } from '../../lib/logger';
import { deliverHttpBatch } from './exporters/http';
import { deliverPostgresBatch } from './exporters/postgres';
import { deliverStdoutBatch } from './exporters/stdout';

/** What one batch did: `stop` when the pipeline is gone or stopped (its workflow ends), else how many logs went out. */
export interface PipelineBatchResult {
  stop?: 'deleted' | 'stopped';
  exported: number;
}

/** How often a running batch tells Temporal it is alive, well inside the workflow's heartbeat timeout. */
const HEARTBEAT_EVERY_MS = 1000;

function deliver(batch: PipelineBatch): Promise<void> {
  const { driver, config } = batch.exporter;
  if (driver === 'http') return deliverHttpBatch(config as HttpExporterConfig, batch.pipelineId, batch.logs);
  if (driver === 'postgres') return deliverPostgresBatch(config as PostgresExporterConfig, batch.logs);
  if (driver === 'stdout') return deliverStdoutBatch(batch.pipelineId, batch.logs);
  // noop: the pipeline advances over every log and delivers nothing (Formance's driver for trying a pipeline out).
  if (driver === 'noop') return Promise.resolve();
  throw new Error(`exporter ${batch.exporter.id}: unknown driver "${driver}"`);
}

export function createLedgerActivities(deps: { db: Db; logger: Logger }) {
  return {
    /**
     * Reads a pipeline's next batch, delivers it and saves the new position. A failure anywhere is retried by Temporal
     * from the saved position: the drivers are idempotent per log id, so a batch delivered twice is stored once.
     */
    async exportPipelineBatch(pipelineId: string): Promise<PipelineBatchResult> {
      const heartbeat = setInterval(() => Context.current().heartbeat(), HEARTBEAT_EVERY_MS);
      try {
        const next = await nextPipelineBatch(deps.db, pipelineId);
        if ('stop' in next) return { stop: next.stop, exported: 0 };
        const { batch } = next;
        if (batch.logs.length === 0) return { exported: 0 };
        try {
          await deliver(batch);
        } catch (error) {
          deps.logger.warn(
            { pipelineId, exporterId: batch.exporter.id, firstLogId: batch.logs[0].id.toString(), err: String(error) },
            'pipeline batch not delivered; retrying',
          );
          throw error;
        }
        const last = batch.logs[batch.logs.length - 1].id;
        const moved = await advancePipeline(deps.db, pipelineId, batch.afterLogId, last);
        return { exported: moved ? batch.logs.length : 0 };
      } finally {
        clearInterval(heartbeat);
      }
    },
  };
}

export type LedgerActivities = ReturnType<typeof createLedgerActivities>;
