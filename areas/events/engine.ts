import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../../lib/search-attributes';
import type { TemporalDeps } from '../../lib/temporal';
import type { processEventBatch } from '../../workflows/events/process-event-batch';
import type { EventEnvelope } from './envelope';
import { webhookEventType } from './envelope';

/**
 * The one Temporal call of the events area: a batch of outbox events becomes one `processEventBatch` workflow, id
 * `events-<batchId>` (the id of the batch's first event). The id and the reject-duplicate policy make a batch run once
 * even when two dispatchers, or one after a crash, start it again.
 */
export const batchWorkflowId = (batchId: string): string => `events-${batchId}`;

/** @returns false when the batch was already started (by this or another dispatcher). Throws when Temporal refuses. */
export async function startEventBatch(temporal: TemporalDeps, batchId: string, events: EventEnvelope[]): Promise<boolean> {
  try {
    await temporal.client.workflow.start<typeof processEventBatch>('processEventBatch', {
      taskQueue: temporal.taskQueue,
      workflowId: batchWorkflowId(batchId),
      args: [events],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: SEARCH_ATTRIBUTES.PlatformArea, value: 'events' },
        // The batch's event types, so an operator finds the batches that carried one: EventTypes = "ledger.committed_transactions".
        { key: SEARCH_ATTRIBUTES.EventTypes, value: [...new Set(events.map(webhookEventType))].sort() },
      ],
    });
    return true;
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw error;
  }
}
