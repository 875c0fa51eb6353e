import type { BenchPlatform } from '../lib/platform';
import type { Measurement } from '../lib/stats';
import { ledgerScenario } from './ledger';
import { ledgerCompareScenario } from './ledger/compare';
import { ledgerBulkScenario } from './ledger/bulk';
import { ledgerReadsScenario } from './ledger/reads';
import { ledgerVerifyScenario } from './ledger/verify';
import { observabilityScenario } from './observability';
import { orchestrationScenario } from './orchestration';
import { paymentsScenario } from './payments';
import { paymentsStripeScenario } from './payments-stripe';
import { reconciliationScenario } from './reconciliation';
import { walletsScenario } from './wallets';
import { webhooksScenario } from './webhooks';

export interface Scenario {
  name: string;
  /** Returns one or more measurements; each names its baseline scenario (measured in the same run). */
  run(platform: BenchPlatform, scale: number): Promise<Measurement[]>;
}

/** Every area's benchmark scenarios, in the order the report lists them. */
export const scenarios: Scenario[] = [
  ledgerScenario,
  ledgerBulkScenario,
  ledgerReadsScenario,
  ledgerCompareScenario,
  ledgerVerifyScenario,
  observabilityScenario,
  paymentsScenario,
  paymentsStripeScenario,
  walletsScenario,
  orchestrationScenario,
  webhooksScenario,
  reconciliationScenario,
];
