import { condition, continueAsNew, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { LedgerActivities } from '../../activities/ledger';

export interface LedgerPipelineInput {
  ledger: string;
  pipelineId: string;
  /** How long to wait, caught up, before looking for new logs (a `wake` signal cuts it short). */
  pollIntervalMs: number;
  /** Batches (or idle polls) before continuing as new, which keeps the history of a years-long run small. */
  iterationsPerRun?: number;
}

export const wakeSignal = defineSignal('wake');

const { exportPipelineBatch } = proxyActivities<LedgerActivities>({
  // A batch is one bounded exchange with the target (10 s) plus two small queries.
  startToCloseTimeout: '1m',
  // The activity heartbeats every second: a batch lost with its worker is retried within seconds, not at the minute.
  heartbeatTimeout: '5s',
  // No maximumAttempts: a target that is down is retried until it is back (or the pipeline is stopped).
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
});

/**
 * One ledger pipeline (workflow id `ledger-pipeline-<ledger>-<pipelineId>`): export the next batch of logs, again at
 * once while there are more, and when caught up wait for the poll interval or a `wake` signal. The position lives in
 * the pipeline's row, not in the workflow, so a new run, a reset or a crash of the worker anywhere in a batch resumes
 * from the last batch saved. Stopping or deleting the pipeline cancels the run; a batch that finds the pipeline
 * stopped or deleted ends it too.
 */
export async function ledgerPipeline(input: LedgerPipelineInput): Promise<void> {
  let woken = false;
  setHandler(wakeSignal, () => {
    woken = true;
  });
  const iterations = input.iterationsPerRun ?? 200;
  for (let i = 0; i < iterations; i++) {
    const result = await exportPipelineBatch(input.pipelineId);
    if (result.stop) return;
    if (result.exported === 0 && !woken) await condition(() => woken, input.pollIntervalMs);
    woken = false;
  }
  await continueAsNew<typeof ledgerPipeline>(input);
}
