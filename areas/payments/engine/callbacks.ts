import { createHash } from 'node:crypto';
import type { TemporalDeps } from '../../../lib/temporal';
import { stringifyJson } from '../../../lib/json';
import type { connectorCallback } from '../../../workflows/payments/connector-callback';
import { connectorLabel } from '../ids';
import { describeConnector, details, searchAttributes, type ConnectorRef } from './workflow-ids';

/**
 * Starts the translation of one unsigned provider callback, id `<connector label>-webhook-<digest of the query>`: the
 * same callback delivered again while its run is open joins it (USE_EXISTING); once closed, a new run reads the resource
 * again and finds the event's id stored, so it changes nothing. @returns the workflow id.
 */
export async function startConnectorCallback(temporal: TemporalDeps, connector: ConnectorRef, query: Record<string, string>): Promise<string> {
  const canonical = stringifyJson(Object.fromEntries(Object.entries(query).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
  const workflowId = `${connectorLabel(connector)}-webhook-${createHash('sha256').update(canonical).digest('hex').slice(0, 32)}`;
  await temporal.client.workflow.start<typeof connectorCallback>('connectorCallback', {
    taskQueue: temporal.taskQueue,
    workflowId,
    workflowIdConflictPolicy: 'USE_EXISTING',
    args: [{ connectorID: connector.id, query }],
    typedSearchAttributes: searchAttributes(connector.id),
    staticSummary: `Webhook ${query.EventType ?? ''} ${query.RessourceId ?? query.ResourceId ?? ''} for ${describeConnector(connector)}`.replace(
      /\s+/g,
      ' ',
    ),
    staticDetails: details(connector),
  });
  return workflowId;
}
