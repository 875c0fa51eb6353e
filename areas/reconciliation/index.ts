/**
 * The reconciliation area's in-process API. Routes and activities import only this file; Temporal is reached only in
 * engine.ts.
 */

// ---- Policies and reconciliations (Formance's classic model): policies/ ----
export { createPolicy, deletePolicy, getPolicy, listPolicies, policyKey, type Policy, type PolicyInput } from './policies/policies';
export { getReconciliation, listReconciliations, reconcile, reconciliationKey, type Reconciliation } from './policies/reconcile';
export { computeDrift, type ReconciliationOutcome } from './policies/drift';
// ---- end of policies and reconciliations ----

// ---- Rules, evaluations and alerts (areas/reconciliation/rules/) ----
export {
  ackAlert,
  acceptAlert,
  ALERT_EVENT_TYPES,
  getAlert,
  listAlertEvents,
  listAlerts,
  resolveAlert,
  snoozeAlert,
  unsnoozeAlert,
  type AlertFilters,
} from './rules/alerts';
export {
  evaluateRule,
  getEvaluation,
  listEvaluations,
  periodOf,
  RULE_EVALUATED_EVENT,
  runScheduledEvaluation,
  type EvaluateRequest,
  type EvaluationFilters,
} from './rules/evaluate';
export {
  ALERT_STATUSES,
  CADENCES,
  EVALUATION_RESULTS,
  presentAlert,
  presentAlertEvent,
  presentEvaluation,
  presentRule,
  SEVERITIES,
  TEMPLATE_KINDS,
} from './rules/model';
export { createRule, deleteRule, getRule, listRules, patchRule, type RuleFilters, type RuleInput, type RulePatch } from './rules/rules';
export { ruleScheduleId } from './engine';
// ---- end of rules, evaluations and alerts ----
