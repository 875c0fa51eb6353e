import type { Client } from '@temporalio/client';
import type { Db } from '../db/knex';
import type { Logger } from '../lib/logger';
import { getConfig } from '../lib/config';
import { createEventActivities } from './events';
import { createLedgerActivities } from './ledger';
import { createPaymentsActivities } from './payments';
import { createOpenBankingActivities } from './payments/open-banking';
import { createOrchestrationActivities } from './orchestration';
import { createReconciliationActivities } from './reconciliation/rules';
import { createSystemActivities } from './system';
import { createWebhookActivities } from './webhooks';

export interface ActivityDeps {
  db: Db;
  logger: Logger;
  /** A client on the worker's own connection, for activities that start workflows (payments, triggers). */
  temporal: { client: Client; taskQueue: string };
}

/** Every activity the worker registers, bound to its dependencies (no globals, so tests can build their own). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createSystemActivities(deps.db),
    ...createPaymentsActivities({ ...deps, dataDir: getConfig().dataDir, publicUrl: getConfig().publicUrl }),
    ...createOpenBankingActivities({ db: deps.db, dataDir: getConfig().dataDir }),
    ...createWebhookActivities({ db: deps.db, temporal: deps.temporal }),
    ...createEventActivities(deps),
    ...createOrchestrationActivities(deps),
    ...createLedgerActivities(deps),
    ...createReconciliationActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
