import { WorkflowNotFoundError } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../../lib/search-attributes';
import type { TemporalDeps } from '../../lib/temporal';
import type { ledgerPipeline, LedgerPipelineInput } from '../../workflows/ledger/pipeline';
import { getConfig } from '../../lib/config';

/**
 * Every Temporal call of the ledger area. A pipeline runs as one long-running workflow whose id names its ledger and
 * pipeline (`ledger-pipeline-<ledger>-<pipelineId>`), with PlatformArea = "ledger", so an operator finds it in the Web
 * UI; the workflow keeps no position of its own (the pipeline row does), so any run of it resumes where the last
 * delivered batch ended.
 */
export const pipelineWorkflowId = (ledger: string, pipelineId: string): string => `ledger-pipeline-${ledger}-${pipelineId}`;

/** LEDGER_PIPELINE_POLL_INTERVAL_MS: how long a caught-up pipeline waits before looking for new logs. */
const pollIntervalMs = (): number => getConfig().ledgerPipelinePollIntervalMs;

/**
 * Starts a pipeline's workflow. A run already under that id (a stop still cancelling it, or a start repeated after a
 * lost answer) is replaced: deliveries are idempotent and the position is advanced only from the value a batch read,
 * so the old run ending mid-batch loses nothing.
 */
export async function startPipelineWorkflow(temporal: TemporalDeps, ledger: string, pipelineId: string): Promise<void> {
  const input: LedgerPipelineInput = { ledger, pipelineId, pollIntervalMs: pollIntervalMs() };
  await temporal.client.workflow.start<typeof ledgerPipeline>('ledgerPipeline', {
    taskQueue: temporal.taskQueue,
    workflowId: pipelineWorkflowId(ledger, pipelineId),
    args: [input],
    workflowIdConflictPolicy: 'TERMINATE_EXISTING',
    typedSearchAttributes: [{ key: SEARCH_ATTRIBUTES.PlatformArea, value: 'ledger' }],
  });
}

/** Cancels a pipeline's workflow; one that already ended (or never ran) is fine. */
export async function cancelPipelineWorkflow(temporal: TemporalDeps, ledger: string, pipelineId: string): Promise<void> {
  try {
    await temporal.client.workflow.getHandle(pipelineWorkflowId(ledger, pipelineId)).cancel();
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}

/** Wakes a caught-up pipeline at once (after a reset) instead of at its next poll; a stopped one ignores it. */
export async function wakePipelineWorkflow(temporal: TemporalDeps, ledger: string, pipelineId: string): Promise<void> {
  try {
    await temporal.client.workflow.getHandle(pipelineWorkflowId(ledger, pipelineId)).signal('wake');
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}
