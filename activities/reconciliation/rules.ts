import { runScheduledEvaluation } from '../../areas/reconciliation';
import type { Db } from '../../db/knex';
import type { RuleRunResult } from '../../workflows/reconciliation/rule-run';

export function createReconciliationActivities(deps: { db: Db }) {
  return {
    /** Evaluates a rule at the run's instant; idempotent by evaluation id (a retry returns the recorded result). */
    async evaluateReconciliationRule(input: { ruleID: string; evaluationID: string; at: string }): Promise<RuleRunResult> {
      return runScheduledEvaluation(deps.db, { ruleID: input.ruleID, evaluationID: input.evaluationID, at: new Date(input.at) });
    },
  };
}

export type ReconciliationActivities = ReturnType<typeof createReconciliationActivities>;
