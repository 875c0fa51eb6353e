/**
 * The rules model's rows and their API shapes (Formance reconciliation.v1: Rule, Evaluation, Alert, AlertEvent).
 * Amounts inside evidence are decimal strings, as Formance's `proof` values are: exact at any size, whatever reads them.
 */

export const TEMPLATE_KINDS = ['ledger_vs_pool_drift', 'ledger_invariant', 'account_threshold', 'source_parity'] as const;
export type TemplateKind = (typeof TEMPLATE_KINDS)[number];
export const CADENCES = ['continuous', 'daily', 'weekly', 'monthly'] as const;
export type Cadence = (typeof CADENCES)[number];
export const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const ALERT_STATUSES = ['OPEN', 'ACKNOWLEDGED', 'RESOLVED'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];
export const EVALUATION_RESULTS = ['PASS', 'FAIL', 'ERROR'] as const;
export type EvaluationResult = (typeof EVALUATION_RESULTS)[number];
export type AlertEventType = 'fail' | 'pass' | 'ack' | 'resolve' | 'accept' | 'snooze' | 'unsnooze';

export interface RuleSchedule {
  kind: 'on_demand' | 'cron';
  expr?: string;
  tz?: string;
  /** A Go duration subtracted from the run's time to give the instant read (default 30s). */
  safetyMargin?: string;
}

export interface RuleRow {
  id: string;
  name: string;
  template_kind: TemplateKind;
  template_spec: Record<string, unknown>;
  cadence: Cadence;
  schedule: RuleSchedule | null;
  severity: Severity;
  labels: Record<string, string>;
  notifications: string[];
  enabled: boolean;
  explanation_cel: string;
  created_at: Date;
  updated_at: Date;
  seq: string;
}

export function presentRule(row: RuleRow) {
  return {
    id: row.id,
    name: row.name,
    templateKind: row.template_kind,
    templateSpec: row.template_spec,
    cadence: row.cadence,
    ...(row.schedule ? { schedule: row.schedule } : {}),
    severity: row.severity,
    labels: row.labels,
    notifications: row.notifications,
    enabled: row.enabled,
    explanationCEL: row.explanation_cel,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

/** One fingerprint's outcome: `proof` on PASS (the observed balances), `evidence` on FAIL (the full breakdown). */
export interface Outcome {
  fingerprint: string;
  passed: boolean;
  proof?: Record<string, string>;
  evidence?: Record<string, unknown>;
}

export interface EvaluationRow {
  id: string;
  rule_id: string;
  result: EvaluationResult;
  evidence: Outcome[] | Record<string, unknown>;
  error: string | null;
  pit_per_source: Record<string, string>;
  cost_units: number;
  trigger: 'schedule' | 'on_demand';
  started_at: Date;
  ended_at: Date;
  created_at: Date;
  seq: string;
}

export function presentEvaluation(row: EvaluationRow) {
  return {
    id: row.id,
    ruleID: row.rule_id,
    result: row.result,
    evidence: row.evidence,
    ...(row.error ? { error: row.error } : {}),
    pitPerSource: row.pit_per_source,
    costUnits: row.cost_units,
    startedAt: new Date(row.started_at).toISOString(),
    endedAt: new Date(row.ended_at).toISOString(),
    createdAt: new Date(row.created_at).toISOString(),
  };
}

export interface AlertRow {
  id: string;
  rule_id: string;
  fingerprint: string;
  period_id: string;
  status: AlertStatus;
  severity: Severity;
  labels: Record<string, string>;
  evidence: Record<string, unknown>;
  occurrence_count: number;
  first_seen_at: Date;
  last_seen_at: Date;
  last_evaluation_id: string;
  failing: boolean;
  ack: { at: string; by: string; note?: string } | null;
  snooze: { at: string; by: string; note?: string; until: string } | null;
  resolution: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
  seq: string;
}

export function presentAlert(row: AlertRow) {
  return {
    id: row.id,
    ruleID: row.rule_id,
    fingerprint: row.fingerprint,
    periodID: row.period_id,
    status: row.status,
    severity: row.severity,
    labels: row.labels,
    evidence: row.evidence,
    occurrenceCount: row.occurrence_count,
    firstSeenAt: new Date(row.first_seen_at).toISOString(),
    lastSeenAt: new Date(row.last_seen_at).toISOString(),
    lastEvaluationID: row.last_evaluation_id,
    ...(row.ack ? { ack: row.ack } : {}),
    ...(row.snooze ? { snooze: row.snooze } : {}),
    ...(row.resolution ? { resolution: row.resolution } : {}),
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

export interface AlertEventRow {
  seq: string;
  id: string;
  alert_id: string;
  type: AlertEventType;
  prev_status: AlertStatus | null;
  new_status: AlertStatus;
  is_reopen: boolean;
  notify: boolean;
  evaluation_id: string | null;
  payload: Record<string, unknown>;
  at: Date;
}

export function presentAlertEvent(row: AlertEventRow) {
  return {
    id: row.id,
    alertID: row.alert_id,
    type: row.type,
    prevStatus: row.prev_status,
    newStatus: row.new_status,
    isReopen: row.is_reopen,
    notify: row.notify,
    evaluationID: row.evaluation_id,
    payload: row.payload,
    at: new Date(row.at).toISOString(),
  };
}
