import { SEARCH_ATTRIBUTES } from '../../../lib/search-attributes';
import type { FetchKind } from '../connectors/connector-catalog';
import { connectorLabel } from '../ids';

// What the payments engine's calls share (see index.ts): workflow and schedule ids, search attributes, the texts the
// Temporal UI shows, and a failed run's message.

/** A connector as the engine names its schedules and tasks. */
export interface ConnectorRef {
  id: string;
  provider: string;
  name: string;
}

export const scheduleIdOf = (connector: ConnectorRef, kind: FetchKind): string => `${connectorLabel(connector)}-${kind}`;
export const initiationWorkflowId = (id: string, attempt: number): string => `payment-initiation-${id}-${attempt}`;
export const reversalWorkflowId = (id: string, number: number): string => `payment-initiation-${id}-reversal-${number}`;
export const forwardWorkflowId = (bankAccountID: string, connectorID: string): string => `bank-account-${bankAccountID}-forward-${connectorID}`;
/** The id of the workflow (also its task id) that each long-running connector operation runs as. */
export type ConnectorTask = 'install' | 'uninstall' | 'reset';
export const connectorTaskId = (connector: ConnectorRef, task: ConnectorTask): string => `${connectorLabel(connector)}-${task}`;

export const searchAttributes = (connectorID: string) => [
  { key: SEARCH_ATTRIBUTES.PlatformArea, value: 'payments' },
  { key: SEARCH_ATTRIBUTES.ConnectorID, value: connectorID },
];
export const describeConnector = (c: ConnectorRef): string => `connector "${c.name}" (${c.provider})`;
export const details = (c: ConnectorRef): string => `Connector id (API): \`${c.id}\``;

/** A failed run's deepest cause, as the API shows it. */
export const failureMessage = (error: unknown): string => {
  let cause = error as Error | undefined;
  while (cause?.cause instanceof Error) cause = cause.cause;
  return cause?.message || (error instanceof Error ? error.message : String(error));
};
