import type { Knex } from 'knex';
import * as foundation from './001-foundation';
import * as auth from './002-auth';
import * as ledger from './003-ledger';
import * as wallets from './004-wallets';
import * as payments from './005-payments';
import * as orchestration from './006-orchestration';
import * as webhooks from './007-webhooks';
import * as eventBatches from './008-event-batches';
import * as platformSecrets from './009-platform-secrets';
import * as tokenRevocations from './010-token-revocations';
import * as ledgerLogs from './011-ledger-logs';
import * as ledgerMappings from './012-ledger-mappings';
import * as webhookDeliveries from './013-webhook-deliveries';
import * as ledgerPipelines from './014-ledger-pipelines';
import * as ledgerV2Surface from './015-ledger-v2-surface';
import * as platformBucket from './016-platform-bucket';
import * as paymentsDynamicPools from './017-payments-dynamic-pools';
import * as paymentsConversionsOrders from './018-payments-conversions-orders';
import * as paymentsOpenBanking from './019-payments-open-banking';
import * as ledgerTransactionText from './020-ledger-transaction-text';
import * as paymentsAccountOrder from './021-payments-account-order';
import * as ledgerTransactionJsonHead from './022-ledger-transaction-json-head';
import * as paymentsConsentDecision from './023-payments-consent-decision';
import * as authScopeRevocations from './024-auth-scope-revocations';
import * as orchestrationAbortCausation from './025-orchestration-abort-causation';
import * as webhookEndpointQueues from './026-webhook-endpoint-queues';
import * as ledgerLogCheckpoints from './027-ledger-log-checkpoints';
import * as auditEntries from './028-audit-entries';
import * as reconciliation from './029-reconciliation';
import * as reconciliationRules from './030-reconciliation-rules';
import * as paymentsConnectorStates from './031-payments-connector-states';
import * as auditTraceId from './032-audit-trace-id';
import * as ledgerLogHashes from './033-ledger-log-hashes';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * Migrations are listed here rather than discovered on disk, so the same list runs from TypeScript sources, from the
 * compiled build and inside jest. Append new ones; never reorder or rename a released one.
 */
const migrations: Array<[string, Migration]> = [
  ['001-foundation', foundation],
  ['002-auth', auth],
  ['003-ledger', ledger],
  ['004-wallets', wallets],
  ['005-payments', payments],
  ['006-orchestration', orchestration],
  ['007-webhooks', webhooks],
  ['008-event-batches', eventBatches],
  ['009-platform-secrets', platformSecrets],
  ['010-token-revocations', tokenRevocations],
  ['011-ledger-logs', ledgerLogs],
  ['012-ledger-mappings', ledgerMappings],
  ['013-webhook-deliveries', webhookDeliveries],
  ['014-ledger-pipelines', ledgerPipelines],
  ['015-ledger-v2-surface', ledgerV2Surface],
  ['016-platform-bucket', platformBucket],
  ['017-payments-dynamic-pools', paymentsDynamicPools],
  ['018-payments-conversions-orders', paymentsConversionsOrders],
  ['019-payments-open-banking', paymentsOpenBanking],
  ['020-ledger-transaction-text', ledgerTransactionText],
  ['021-payments-account-order', paymentsAccountOrder],
  ['022-ledger-transaction-json-head', ledgerTransactionJsonHead],
  ['023-payments-consent-decision', paymentsConsentDecision],
  ['024-auth-scope-revocations', authScopeRevocations],
  ['025-orchestration-abort-causation', orchestrationAbortCausation],
  ['026-webhook-endpoint-queues', webhookEndpointQueues],
  ['027-ledger-log-checkpoints', ledgerLogCheckpoints],
  ['028-audit-entries', auditEntries],
  ['029-reconciliation', reconciliation],
  ['030-reconciliation-rules', reconciliationRules],
  ['031-payments-connector-states', paymentsConnectorStates],
  ['032-audit-trace-id', auditTraceId],
  ['033-ledger-log-hashes', ledgerLogHashes],
];

export const migrationSource: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => migrations,
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};

export async function migrateLatest(knex: Knex): Promise<string[]> {
  const [, applied] = await knex.migrate.latest({ migrationSource });
  return applied as string[];
}

export interface MigrationInfo {
  /** Its position in the list, from 1. */
  version: number;
  name: string;
  state: 'DONE' | 'TO DO';
  date?: Date;
}

/** Every migration of the list with whether (and when) this database applied it: Formance v1's ledger `_info`. */
export async function migrationsInfo(knex: Knex): Promise<MigrationInfo[]> {
  const applied: Array<{ name: string; migration_time: Date }> = await knex('knex_migrations').select('name', 'migration_time');
  const when = new Map(applied.map((row) => [row.name, row.migration_time]));
  return migrations.map(([name], index) => {
    const date = when.get(name);
    return { version: index + 1, name, state: date ? 'DONE' : 'TO DO', ...(date ? { date } : {}) };
  });
}
