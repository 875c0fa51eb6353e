import { proxyActivities, uuid4 } from '@temporalio/workflow';
import type { ReconciliationActivities } from '../../activities/reconciliation/rules';

export interface RuleRunInput {
  ruleID: string;
}

export interface RuleRunResult {
  evaluationID?: string;
  result?: 'PASS' | 'FAIL' | 'ERROR';
  /** Why nothing was evaluated: the rule was disabled or deleted after the schedule fired. */
  skipped?: 'disabled' | 'deleted';
}

const { evaluateReconciliationRule } = proxyActivities<ReconciliationActivities>({
  // One evaluation reads its sources (a ledger's postings up to the instant, a pool's balances as of it) and writes one
  // row per failing fingerprint: minutes at most, even on a large ledger.
  startToCloseTimeout: '5m',
  // A source that cannot be read is an ERROR evaluation, not an activity failure: only infrastructure failures (the
  // database unreachable, the worker lost, a point-in-time read waiting on a writer still open since before the run's
  // instant) are retried, and the evaluation id makes a retry write nothing twice.
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 5 },
});

/**
 * One scheduled evaluation of a rule (a run of the Schedule `reconciliation-rule-<ruleID>`). The evaluation's id and
 * its instant are fixed here, in the workflow, so every attempt of the activity evaluates the same instant and the
 * first committed attempt is the only one recorded.
 */
export async function reconciliationRuleRun(input: RuleRunInput): Promise<RuleRunResult> {
  const evaluationID = uuid4();
  const at = new Date(Date.now()).toISOString();
  return evaluateReconciliationRule({ ruleID: input.ruleID, evaluationID, at });
}
