import { randomUUID } from 'node:crypto';
import type { Db, Executor } from '../../../db/knex';
import { inTransaction } from '../../../db/errors';
import { emitEvents } from '../../../db/outbox';
import { keysetPage, type ListQuery, type Page } from '../../../db/pagination';
import { conflict, isApiError, notFound, validationError } from '../../../lib/errors';
import { stringifyJson } from '../../../lib/json';
import { appendAlertEvent, snoozeActive } from './alerts';
import { parseGoDuration } from './durations';
import { type AlertRow, type Cadence, type EvaluationResult, type EvaluationRow, type Outcome, presentEvaluation, type RuleRow } from './model';
import { readSource } from './reads';
import { getRuleRow, isUuid } from './rules';
import { outcomesOf, parseTemplate, type SourceRead, sourcesOf } from './templates';

export const RULE_EVALUATED_EVENT = 'RULE_EVALUATED';
const DEFAULT_SAFETY_MARGIN_MS = 30_000;

/** The period an alert of this cadence belongs to, from the evaluation's instant (UTC). */
export function periodOf(cadence: Cadence, at: Date): string {
  const iso = at.toISOString();
  if (cadence === 'daily') return iso.slice(0, 10);
  if (cadence === 'monthly') return iso.slice(0, 7);
  if (cadence === 'weekly') {
    // ISO 8601 week: the week (Monday first) holding the year's first Thursday is week 1.
    const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
    const weekday = day.getUTCDay() || 7;
    day.setUTCDate(day.getUTCDate() + 4 - weekday);
    const yearStart = Date.UTC(day.getUTCFullYear(), 0, 1);
    const week = Math.ceil(((day.getTime() - yearStart) / 86_400_000 + 1) / 7);
    return `${day.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
  }
  return 'continuous';
}

interface Plan {
  evaluationID: string;
  trigger: 'schedule' | 'on_demand';
  /** The evaluation's canonical instant: the default point in time and the alert period's reference. */
  at: Date;
  pitOf: (sourceKey: string) => Date;
}

interface Computed {
  result: EvaluationResult;
  outcomes: Outcome[];
  error?: string;
  pitPerSource: Record<string, string>;
  costUnits: number;
  startedAt: Date;
  endedAt: Date;
}

/**
 * Reads the rule's sources, each as of its point in time (recorded in pitPerSource), and checks them. A source that
 * cannot be read, or a condition that cannot run, is ERROR. A point-in-time read that cannot be exact yet (a writer
 * still open since before the instant: SERVICE_UNAVAILABLE) is thrown instead: an on-demand evaluation answers 503, a
 * scheduled one is retried by its activity, and no evaluation is recorded for a transient state.
 */
async function compute(db: Executor, rule: RuleRow, plan: Plan): Promise<Computed> {
  const startedAt = new Date();
  const pitPerSource: Record<string, string> = {};
  try {
    const template = parseTemplate(rule.template_kind, rule.template_spec);
    const reads: SourceRead[] = [];
    let costUnits = 0;
    for (const { key, source } of sourcesOf(template)) {
      const pit = plan.pitOf(key);
      pitPerSource[key] = pit.toISOString();
      const read = await readSource(db, source, pit);
      costUnits += read.type === 'ledger' ? read.balances.length : read.balances.size;
      reads.push(read);
    }
    const outcomes = outcomesOf(template, reads, rule.explanation_cel);
    return { result: outcomes.some((o) => !o.passed) ? 'FAIL' : 'PASS', outcomes, pitPerSource, costUnits, startedAt, endedAt: new Date() };
  } catch (error) {
    if (isApiError(error) && error.code === 'SERVICE_UNAVAILABLE') throw error;
    return { result: 'ERROR', outcomes: [], error: (error as Error).message, pitPerSource, costUnits: 0, startedAt, endedAt: new Date() };
  }
}

/**
 * Records an evaluation and what it does to the rule's alerts, in one transaction: the evaluation row, each failing
 * fingerprint's alert (opened, reopened or counted), each recovered fingerprint's `pass`, and their platform events.
 * The rule row is locked, so the evaluations of one rule apply one after the other (the edge state of a threshold
 * rule and an alert's occurrence count see every earlier evaluation). The evaluation id is the idempotency key: a
 * second write of the same id changes nothing and returns the first.
 */
async function record(db: Db, ruleID: string, plan: Plan, computed: Computed): Promise<EvaluationRow> {
  return inTransaction(db, async (trx) => {
    const existing = (await trx('reconciliation_evaluations').where({ id: plan.evaluationID }).first()) as EvaluationRow | undefined;
    if (existing) return existing;
    const rule = (await trx('reconciliation_rules').where({ id: ruleID }).forUpdate().first()) as RuleRow | undefined;
    const edgeTriggered = rule?.template_kind === 'account_threshold';
    const breached = new Map<string, boolean>();
    if (rule && edgeTriggered) {
      const rows = await trx('reconciliation_rule_edges').where({ rule_id: rule.id }).select('fingerprint', 'breached');
      for (const row of rows) breached.set(row.fingerprint, row.breached);
      for (const outcome of computed.outcomes) {
        // The balance stayed beyond the threshold since the evaluation that opened the alert: no new occurrence.
        if (!outcome.passed && breached.get(outcome.fingerprint)) outcome.evidence = { ...outcome.evidence, edge: 'held' };
        if (!outcome.passed && !breached.get(outcome.fingerprint)) outcome.evidence = { ...outcome.evidence, edge: 'crossed' };
      }
    }
    const evidence = computed.result === 'ERROR' ? { error: computed.error } : computed.outcomes;
    const [evaluation] = (await trx('reconciliation_evaluations')
      .insert({
        id: plan.evaluationID,
        rule_id: ruleID,
        result: computed.result,
        evidence: stringifyJson(evidence),
        error: computed.error ?? null,
        pit_per_source: computed.pitPerSource,
        cost_units: computed.costUnits,
        trigger: plan.trigger,
        started_at: computed.startedAt,
        ended_at: computed.endedAt,
      })
      .returning('*')) as EvaluationRow[];
    if (rule && computed.result !== 'ERROR') {
      const period = periodOf(rule.cadence, plan.at);
      for (const outcome of computed.outcomes) {
        if (edgeTriggered) {
          const was = breached.get(outcome.fingerprint) ?? false;
          if (was === !outcome.passed) continue;
          await trx('reconciliation_rule_edges')
            .insert({ rule_id: rule.id, fingerprint: outcome.fingerprint, breached: !outcome.passed })
            .onConflict(['rule_id', 'fingerprint'])
            .merge(['breached']);
        }
        if (outcome.passed) await recovered(trx, rule, period, outcome, evaluation);
        else await failed(trx, rule, period, outcome, evaluation);
      }
    }
    await emitEvents(trx, [
      {
        app: 'reconciliation',
        type: RULE_EVALUATED_EVENT,
        payload: {
          evaluation: presentEvaluation(evaluation),
          rule: rule
            ? { id: rule.id, name: rule.name, templateKind: rule.template_kind, severity: rule.severity, labels: rule.labels }
            : { id: ruleID },
        },
      },
    ]);
    return evaluation;
  });
}

async function failed(trx: Executor, rule: RuleRow, period: string, outcome: Outcome, evaluation: EvaluationRow): Promise<void> {
  const now = new Date(evaluation.ended_at);
  const key = { rule_id: rule.id, fingerprint: outcome.fingerprint, period_id: period };
  const current = (await trx('reconciliation_alerts').where(key).forUpdate().first()) as AlertRow | undefined;
  const evidence = outcome.evidence ?? {};
  if (!current) {
    const [alert] = (await trx('reconciliation_alerts')
      .insert({
        id: randomUUID(),
        ...key,
        status: 'OPEN',
        severity: rule.severity,
        labels: stringifyJson(rule.labels),
        evidence: stringifyJson(evidence),
        occurrence_count: 1,
        first_seen_at: now,
        last_seen_at: now,
        last_evaluation_id: evaluation.id,
        failing: true,
      })
      .returning('*')) as AlertRow[];
    await appendAlertEvent(trx, alert, { type: 'fail', prevStatus: null, notify: true, evaluationID: evaluation.id, payload: { evidence }, at: now });
    return;
  }
  const reopen = current.status === 'RESOLVED';
  const [alert] = (await trx('reconciliation_alerts')
    .where({ id: current.id })
    .update({
      occurrence_count: current.occurrence_count + 1,
      last_seen_at: now,
      last_evaluation_id: evaluation.id,
      evidence: stringifyJson(evidence),
      failing: true,
      updated_at: now,
      ...(reopen ? { status: 'OPEN', ack: null, resolution: null } : {}),
    })
    .returning('*')) as AlertRow[];
  // Notified: a reopen, unless snoozed. A repeated failure of an unresolved alert is logged and counted only.
  const notify = reopen && !snoozeActive(current, now);
  await appendAlertEvent(trx, alert, {
    type: 'fail',
    prevStatus: current.status,
    isReopen: reopen,
    notify,
    evaluationID: evaluation.id,
    payload: { evidence },
    at: now,
  });
}

/** A passing fingerprint whose unresolved alert was failing: logged once, as `pass`; the alert stays for an operator. */
async function recovered(trx: Executor, rule: RuleRow, period: string, outcome: Outcome, evaluation: EvaluationRow): Promise<void> {
  const current = (await trx('reconciliation_alerts')
    .where({ rule_id: rule.id, fingerprint: outcome.fingerprint, period_id: period, failing: true })
    .whereNot('status', 'RESOLVED')
    .forUpdate()
    .first()) as AlertRow | undefined;
  if (!current) return;
  const now = new Date(evaluation.ended_at);
  const [alert] = (await trx('reconciliation_alerts')
    .where({ id: current.id })
    .update({ failing: false, updated_at: now })
    .returning('*')) as AlertRow[];
  await appendAlertEvent(trx, alert, {
    type: 'pass',
    prevStatus: current.status,
    notify: false,
    evaluationID: evaluation.id,
    payload: { proof: outcome.proof ?? {} },
    at: now,
  });
}

export interface EvaluateRequest {
  at?: string;
  safetyMargin?: string;
  sourcePITs?: Record<string, string>;
}

function pastInstant(value: string, field: string, now: Date): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw validationError(`${field}: must be a date-time`);
  if (date > now) throw validationError(`${field}: must be in the past`);
  return date;
}

/**
 * Evaluates a rule now, on request (Formance's POST /rules/{ruleID}/evaluate): `at` (default now minus the safety
 * margin) is every source's instant unless `sourcePITs` names one; 409 when the rule is disabled.
 */
export async function evaluateRule(db: Db, ruleID: string, request: EvaluateRequest = {}) {
  const rule = await getRuleRow(db, ruleID);
  if (!rule.enabled) throw conflict(`rule ${ruleID} is disabled: enable it (PATCH enabled=true) to evaluate it`);
  const now = new Date();
  const margin = request.safetyMargin === undefined ? DEFAULT_SAFETY_MARGIN_MS : parseGoDuration(request.safetyMargin);
  if (margin === undefined || margin < 0) throw validationError('body.safetyMargin: must be a non-negative Go duration (e.g. "30s", "0s")');
  const keys = sourcesOf(parseTemplate(rule.template_kind, rule.template_spec)).map((s) => s.key);
  const overrides: Record<string, Date> = {};
  if (request.sourcePITs) {
    if (request.at === undefined) throw validationError('body.at: required when sourcePITs is given (the period of the alerts is read from it)');
    for (const [key, value] of Object.entries(request.sourcePITs)) {
      if (!keys.includes(key)) throw validationError(`body.sourcePITs.${key}: not a source of this rule (its sources: ${keys.join(', ')})`);
      overrides[key] = pastInstant(value, `body.sourcePITs.${key}`, now);
    }
  }
  const at = request.at !== undefined ? pastInstant(request.at, 'body.at', now) : new Date(now.getTime() - margin);
  const plan: Plan = { evaluationID: randomUUID(), trigger: 'on_demand', at, pitOf: (key) => overrides[key] ?? at };
  return presentEvaluation(await record(db, rule.id, plan, await compute(db, rule, plan)));
}

/**
 * A scheduled evaluation (the activity of a rule's Schedule run): the run's instant minus the schedule's safety
 * margin. A rule disabled or deleted since the schedule fired is skipped.
 */
export async function runScheduledEvaluation(db: Db, input: { ruleID: string; evaluationID: string; at: Date }) {
  const done = (await db('reconciliation_evaluations').where({ id: input.evaluationID }).first('id', 'result')) as
    { id: string; result: EvaluationResult } | undefined;
  if (done) return { evaluationID: done.id, result: done.result };
  const rule = (await db('reconciliation_rules').where({ id: input.ruleID }).first()) as RuleRow | undefined;
  if (!rule) return { skipped: 'deleted' as const };
  if (!rule.enabled) return { skipped: 'disabled' as const };
  const margin = (rule.schedule?.safetyMargin !== undefined ? parseGoDuration(rule.schedule.safetyMargin) : undefined) ?? DEFAULT_SAFETY_MARGIN_MS;
  const at = new Date(input.at.getTime() - margin);
  const plan: Plan = { evaluationID: input.evaluationID, trigger: 'schedule', at, pitOf: () => at };
  const row = await record(db, rule.id, plan, await compute(db, rule, plan));
  return { evaluationID: row.id, result: row.result };
}

export async function getEvaluation(db: Executor, id: string) {
  const row = isUuid(id) ? ((await db('reconciliation_evaluations').where({ id }).first()) as EvaluationRow | undefined) : undefined;
  if (!row) throw notFound(`evaluation ${id} not found`);
  return presentEvaluation(row);
}

export interface EvaluationFilters {
  ruleID?: string;
  result?: EvaluationResult;
}

export async function listEvaluations(db: Executor, list: ListQuery<EvaluationFilters>): Promise<Page<EvaluationRow>> {
  const query = db('reconciliation_evaluations').select('*');
  if (list.filters.ruleID !== undefined) {
    if (!isUuid(list.filters.ruleID)) return { items: [], hasNext: false, hasPrevious: false };
    query.where('rule_id', list.filters.ruleID);
  }
  if (list.filters.result !== undefined) query.where('result', list.filters.result);
  return keysetPage<EvaluationRow>(query, ['seq'], 'desc', list);
}
