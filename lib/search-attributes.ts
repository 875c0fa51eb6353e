import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes the platform sets on its workflows, so an operator can filter runs in the Temporal Web UI
 * (e.g. `PlatformArea = "orchestration" AND OrchestrationWorkflowID = "..."`). The dev server registers them at start;
 * on a Temporal cluster register them once with `temporal operator search-attribute create` (see docs/operations.md).
 */
export const SEARCH_ATTRIBUTES = {
  PlatformArea: defineSearchAttributeKey('PlatformArea', SearchAttributeType.KEYWORD),
  OrchestrationWorkflowID: defineSearchAttributeKey('OrchestrationWorkflowID', SearchAttributeType.KEYWORD),
  OrchestrationTriggerID: defineSearchAttributeKey('OrchestrationTriggerID', SearchAttributeType.KEYWORD),
  ConnectorID: defineSearchAttributeKey('ConnectorID', SearchAttributeType.KEYWORD),
  EventType: defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD),
  WebhookConfigID: defineSearchAttributeKey('WebhookConfigID', SearchAttributeType.KEYWORD),
  /** The distinct `<app>.<type>` of a batch of events: `EventTypes = "ledger.committed_transactions"` finds its batches. */
  EventTypes: defineSearchAttributeKey('EventTypes', SearchAttributeType.KEYWORD_LIST),
};

const CLI_TYPES: Partial<Record<SearchAttributeType, string>> = {
  [SearchAttributeType.KEYWORD]: 'Keyword',
  [SearchAttributeType.KEYWORD_LIST]: 'KeywordList',
};

/** `Name=Type` pairs as `temporal server start-dev --search-attribute` and `operator search-attribute create` take them. */
export function searchAttributeFlags(): string[] {
  return Object.values(SEARCH_ATTRIBUTES).map((key) => `${key.name}=${CLI_TYPES[key.type]}`);
}
