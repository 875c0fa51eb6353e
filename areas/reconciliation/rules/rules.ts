import { randomUUID } from 'node:crypto';
import type { Db, Executor } from '../../../db/knex';
import { inTransaction } from '../../../db/errors';
import { keysetPage, type ListQuery, type Page } from '../../../db/pagination';
import { notFound, validationError } from '../../../lib/errors';
import { stringifyJson } from '../../../lib/json';
import type { TemporalDeps } from '../../../lib/temporal';
import { createRuleSchedule, deleteRuleSchedule, InvalidScheduleSpec, updateRuleSchedule } from '../engine';
import { parseGoDuration } from './durations';
import { type Cadence, presentRule, type RuleRow, type RuleSchedule, type Severity, type TemplateKind } from './model';
import { explanationOf, parseTemplate } from './templates';

export interface RuleInput {
  name: string;
  templateKind: TemplateKind;
  templateSpec: Record<string, unknown>;
  cadence?: Cadence;
  schedule?: RuleSchedule;
  severity?: Severity;
  labels?: Record<string, string>;
  notifications?: string[];
  enabled?: boolean;
}

export type RulePatch = Partial<Omit<RuleInput, 'cadence'>>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID.test(value);

/** A schedule as stored: `cron` needs its expression; a time zone must be one the runtime knows (Temporal's are IANA's). */
function checkSchedule(schedule: RuleSchedule | undefined): RuleSchedule | null {
  if (!schedule) return null;
  if (schedule.kind === 'cron' && !schedule.expr)
    throw validationError('body.schedule.expr: required when kind is cron (e.g. "0 * * * *", "@every 5m")');
  if (schedule.kind === 'on_demand' && schedule.expr) throw validationError('body.schedule.expr: only a cron schedule has an expression');
  if (schedule.tz) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: schedule.tz });
    } catch {
      throw validationError(`body.schedule.tz: unknown time zone "${schedule.tz}" (an IANA name such as Europe/Paris)`);
    }
  }
  if (schedule.safetyMargin !== undefined && parseGoDuration(schedule.safetyMargin) === undefined) {
    throw validationError('body.schedule.safetyMargin: must be a Go duration (e.g. "30s", "1m30s", "0s")');
  }
  return schedule;
}

const scheduleOf = (row: Pick<RuleRow, 'id' | 'name' | 'schedule' | 'enabled'>) =>
  row.schedule?.kind === 'cron'
    ? { ruleID: row.id, name: row.name, cron: row.schedule.expr!, ...(row.schedule.tz ? { tz: row.schedule.tz } : {}), enabled: row.enabled }
    : undefined;

/** Runs the Temporal side of a change; a spec Temporal refuses is the client's 400, naming the schedule. */
async function scheduleCall(call: () => Promise<void>): Promise<void> {
  try {
    await call();
  } catch (error) {
    if (error instanceof InvalidScheduleSpec) throw validationError(`body.schedule: refused by Temporal: ${error.message}`);
    throw error;
  }
}

export async function getRuleRow(db: Executor, id: string): Promise<RuleRow> {
  const row = isUuid(id) ? ((await db('reconciliation_rules').where({ id }).first()) as RuleRow | undefined) : undefined;
  if (!row) throw notFound(`rule ${id} not found`);
  return row;
}

export const getRule = async (db: Executor, id: string) => presentRule(await getRuleRow(db, id));

/**
 * Creates a rule and, for a cron schedule, its Temporal Schedule, inside the row's transaction: a schedule Temporal
 * refuses rolls the row back (400), and a commit that fails after the schedule exists deletes it again.
 */
export async function createRule(deps: { db: Db; temporal: TemporalDeps }, input: RuleInput) {
  const template = parseTemplate(input.templateKind, input.templateSpec);
  const schedule = checkSchedule(input.schedule);
  const id = randomUUID();
  let scheduled = false;
  try {
    const row = await inTransaction(deps.db, async (trx) => {
      const [inserted] = (await trx('reconciliation_rules')
        .insert({
          id,
          name: input.name,
          template_kind: input.templateKind,
          template_spec: stringifyJson(input.templateSpec),
          cadence: input.cadence ?? 'continuous',
          schedule,
          severity: input.severity ?? 'medium',
          labels: stringifyJson(input.labels ?? {}),
          notifications: stringifyJson(input.notifications ?? []),
          enabled: input.enabled ?? true,
          explanation_cel: explanationOf(template),
        })
        .returning('*')) as RuleRow[];
      const spec = scheduleOf(inserted);
      if (spec) {
        await scheduleCall(() => createRuleSchedule(deps.temporal, spec));
        scheduled = true;
      }
      return inserted;
    });
    return presentRule(row);
  } catch (error) {
    if (scheduled) await deleteRuleSchedule(deps.temporal, id);
    throw error;
  }
}

export interface RuleFilters {
  templateKind?: TemplateKind;
  enabled?: boolean;
  name?: string;
}

export async function listRules(db: Executor, list: ListQuery<RuleFilters>): Promise<Page<RuleRow>> {
  const query = db('reconciliation_rules').select('*');
  if (list.filters.templateKind !== undefined) query.where('template_kind', list.filters.templateKind);
  if (list.filters.enabled !== undefined) query.where('enabled', list.filters.enabled);
  if (list.filters.name !== undefined) query.where('name', list.filters.name);
  return keysetPage<RuleRow>(query, ['seq'], 'desc', list);
}

/**
 * Changes some of a rule's fields. The row is locked while its schedule follows it (created, updated, paused when
 * disabled, deleted when it becomes on-demand), so two patches cannot leave the schedule of the earlier one.
 */
export async function patchRule(deps: { db: Db; temporal: TemporalDeps }, id: string, patch: RulePatch) {
  if (!isUuid(id)) throw notFound(`rule ${id} not found`);
  const row = await inTransaction(deps.db, async (trx) => {
    const current = (await trx('reconciliation_rules').where({ id }).forUpdate().first()) as RuleRow | undefined;
    if (!current) throw notFound(`rule ${id} not found`);
    const kind = patch.templateKind ?? current.template_kind;
    const spec = patch.templateSpec ?? current.template_spec;
    if (patch.templateKind && !patch.templateSpec && patch.templateKind !== current.template_kind) {
      throw validationError('body.templateSpec: required when templateKind changes (each kind has its own spec)');
    }
    const template = parseTemplate(kind, spec);
    const schedule = patch.schedule !== undefined ? checkSchedule(patch.schedule) : current.schedule;
    const [updated] = (await trx('reconciliation_rules')
      .where({ id })
      .update({
        name: patch.name ?? current.name,
        template_kind: kind,
        template_spec: stringifyJson(spec),
        schedule,
        severity: patch.severity ?? current.severity,
        labels: stringifyJson(patch.labels ?? current.labels),
        notifications: stringifyJson(patch.notifications ?? current.notifications),
        enabled: patch.enabled ?? current.enabled,
        explanation_cel: explanationOf(template),
        updated_at: trx.fn.now(),
      })
      .returning('*')) as RuleRow[];
    const next = scheduleOf(updated);
    if (next) await scheduleCall(() => updateRuleSchedule(deps.temporal, next));
    else if (scheduleOf(current)) await deleteRuleSchedule(deps.temporal, id);
    return updated;
  });
  return presentRule(row);
}

/** Deletes the rule and its schedule; its evaluations and alerts stay (the record of what was checked). */
export async function deleteRule(deps: { db: Db; temporal: TemporalDeps }, id: string): Promise<void> {
  if (!isUuid(id)) throw notFound(`rule ${id} not found`);
  await inTransaction(deps.db, async (trx) => {
    const deleted = await trx('reconciliation_rules').where({ id }).delete().returning('id');
    if (deleted.length === 0) throw notFound(`rule ${id} not found`);
    await trx('reconciliation_rule_edges').where({ rule_id: id }).delete();
    await deleteRuleSchedule(deps.temporal, id);
  });
}
